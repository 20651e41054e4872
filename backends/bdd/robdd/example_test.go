package robdd_test

import (
	"context"
	"fmt"

	"github.com/nqueens/configurator/backends/bdd/robdd"
)

// pairs builds x0∧x4 ∨ x1∧x5 ∨ x2∧x6 ∨ x3∧x7 with the operations.
func pairs(ctx context.Context, m *robdd.Manager) robdd.Node {
	f := robdd.False
	for i := range 4 {
		x, _ := m.Var(i)
		y, _ := m.Var(4 + i)
		xy, _ := m.And(ctx, x, y)
		f, _ = m.Or(ctx, f, xy)
	}
	return f
}

// Sifting finds an order in which x0∧x4 ∨ x1∧x5 ∨ ... has one node a
// variable, where the order of the variables' numbers needs 30.
func ExampleManager_Reorder() {
	ctx := context.Background()
	m := robdd.New(8, 0)
	f := pairs(ctx, m)
	fmt.Println(m.NodeCount(f), "nodes in the order", m.Order())
	roots, err := m.Reorder(ctx, f)
	if err != nil {
		fmt.Println(err)
		return
	}
	f = roots[0]
	fmt.Println(m.NodeCount(f), "nodes in the order", m.Order())
	fmt.Println(m.SatCount(f), "solutions")
	// Output:
	// 30 nodes in the order [0 1 2 3 4 5 6 7]
	// 8 nodes in the order [0 4 1 5 2 6 3 7]
	// 175 solutions
}

// With automatic reordering on, the operations reorder when the store
// grows, which renumbers the nodes: a diagram kept across operations is
// held, and read back through its Root.
func ExampleManager_SetSifting() {
	ctx := context.Background()
	m := robdd.New(8, 0)
	if err := m.SetSifting(robdd.Sifting{Auto: 16}); err != nil {
		fmt.Println(err)
		return
	}
	acc := m.Hold(robdd.False)
	defer acc.Release()
	for i := range 4 {
		x, _ := m.Var(i)
		y, _ := m.Var(4 + i)
		xy, _ := m.And(ctx, x, y)
		f, err := m.Or(ctx, acc.Node(), xy)
		if err != nil {
			fmt.Println(err)
			return
		}
		acc.Set(f)
	}
	fmt.Println(m.NodeCount(acc.Node()), "nodes,", m.SatCount(acc.Node()), "solutions")
	// Output:
	// 8 nodes, 175 solutions
}
