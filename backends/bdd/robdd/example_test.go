package robdd_test

import (
	"context"
	"fmt"
	"os"

	"github.com/nqueens/configurator/backends/bdd/robdd"
)

// A few core calls: variables, the Boolean operations, a count of the
// satisfying assignments, the diagram's size, one solution and the diagram
// drawn as Graphviz DOT.
func Example() {
	ctx := context.Background()
	m := robdd.New(3, 0) // x0, x1, x2, in that order; no budget
	x := make([]robdd.Node, 3)
	for level := range x {
		v, err := m.Var(level)
		if err != nil {
			panic(err)
		}
		x[level] = v
	}
	// f = (x0 ∧ x1) ∨ ¬x2
	both, err := m.And(ctx, x[0], x[1])
	if err != nil {
		panic(err)
	}
	notX2, err := m.Not(ctx, x[2])
	if err != nil {
		panic(err)
	}
	f, err := m.Or(ctx, both, notX2)
	if err != nil {
		panic(err)
	}
	fmt.Println("solutions:", m.SatCount(f), "nodes:", m.NodeCount(f))

	// A partial assignment fixes some variables: x2 true leaves x0 ∧ x1.
	a := m.NewAssignment()
	a[2] = 1
	sol, ok := m.AnySat(f, a)
	fmt.Println("with x2 true:", m.Count(f, a), "solution", ok, sol)

	if err := m.WriteDOT(os.Stdout, f, nil); err != nil {
		panic(err)
	}
	// Output:
	// solutions: 5 nodes: 3
	// with x2 true: 1 solution true [true true true]
	// digraph bdd {
	// 	node [shape=circle];
	// 	n0 [label="0", shape=box];
	// 	n1 [label="1", shape=box];
	// 	{ rank=same; n8 [label="x0"]; }
	// 	{ rank=same; n7 [label="x1"]; }
	// 	{ rank=same; n6 [label="x2"]; }
	// 	n8 -> n6 [style=dashed];
	// 	n8 -> n7;
	// 	n7 -> n6 [style=dashed];
	// 	n7 -> n1;
	// 	n6 -> n1 [style=dashed];
	// 	n6 -> n0;
	// }
}

// The N-Queens puzzle built from its rules with Var, And, Or, Not and Imp
// alone: a variable per square, row-major (square (r, c) at level r·n+c);
// each rank holds a queen, and no two queens share a line. SatCount counts
// the solutions and NodeCount gives the size of the reduced diagram, which
// for this variable order is the same whatever the order of the
// conjunctions: a reduced ordered diagram is canonical.
func Example_queens() {
	ctx := context.Background()
	for n := 4; n <= 6; n++ {
		f, m, err := queens(ctx, n)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%d-queens: %v solutions, %d nodes\n", n, m.SatCount(f), m.NodeCount(f))
	}
	// Output:
	// 4-queens: 2 solutions, 29 nodes
	// 5-queens: 10 solutions, 167 nodes
	// 6-queens: 4 solutions, 129 nodes
}

// queens returns the diagram of the n-queens puzzle, in a Manager of its
// own.
func queens(ctx context.Context, n int) (robdd.Node, *robdd.Manager, error) {
	m := robdd.New(n*n, 0)
	square := func(r, c int) (robdd.Node, error) { return m.Var(r*n + c) }
	f := robdd.True
	// Each rank holds at least one queen.
	for r := range n {
		rank := robdd.False
		for c := range n {
			x, err := square(r, c)
			if err != nil {
				return 0, nil, err
			}
			if rank, err = m.Or(ctx, rank, x); err != nil {
				return 0, nil, err
			}
		}
		var err error
		if f, err = m.And(ctx, f, rank); err != nil {
			return 0, nil, err
		}
	}
	// No two queens attack each other: a queen on one square of a rank,
	// file or diagonal implies none on another.
	for a := range n * n {
		for b := a + 1; b < n*n; b++ {
			ra, ca, rb, cb := a/n, a%n, b/n, b%n
			if ra != rb && ca != cb && ra-ca != rb-cb && ra+ca != rb+cb {
				continue
			}
			x, err := square(ra, ca)
			if err != nil {
				return 0, nil, err
			}
			y, err := square(rb, cb)
			if err != nil {
				return 0, nil, err
			}
			notY, err := m.Not(ctx, y)
			if err != nil {
				return 0, nil, err
			}
			apart, err := m.Imp(ctx, x, notY)
			if err != nil {
				return 0, nil, err
			}
			if f, err = m.And(ctx, f, apart); err != nil {
				return 0, nil, err
			}
		}
	}
	return f, m, nil
}

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
