package configurator_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
)

// Compile a model with a backend, then ask the compiled space about a
// placement.
func ExampleCompile() {
	ctx := context.Background()
	model, err := configurator.New(8, configurator.RowMajor)
	if err != nil {
		panic(err)
	}
	space, _, err := configurator.Compile(ctx, bdd.New(bdd.Options{}), model)
	if err != nil {
		panic(err)
	}
	empty, err := space.Analyze(ctx, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("8×8, empty board:", empty.Solutions, "solutions")

	a1 := configurator.Cell{Row: 0, Col: 0}
	one, err := space.Analyze(ctx, []configurator.Cell{a1})
	if err != nil {
		panic(err)
	}
	fmt.Println("with a queen on a1:", one.Solutions, "solutions;", one.At(configurator.Cell{Row: 1, Col: 1}), "on b2")
	// Output:
	// 8×8, empty board: 92 solutions
	// with a queen on a1: 4 solutions; blocked on b2
}

// A board is configured as the feature model it is: a feature per square,
// a queen the decision that selects it. Each queen placed is analysed at
// once, every square classified as free, blocked or forced, and the
// solutions that remain counted.
func ExampleFeatureSession_board() {
	ctx := context.Background()
	space := eightQueens(ctx)
	m := space.Model()
	s, err := configurator.NewFeatureSession(ctx, space, nil)
	if err != nil {
		panic(err)
	}
	summary(m, s)
	for _, d := range configurator.BoardDecisions(m, cells("a1,g2")) {
		if err := s.Decide(ctx, d); err != nil {
			panic(err)
		}
		summary(m, s)
	}
	fmt.Print(board(m, s.Domains()))

	// A queen on a blocked square is refused, and the session stays as
	// it was.
	c4 := configurator.BoardDecisions(m, cells("c4"))[0]
	fmt.Println(s.Decide(ctx, c4))
	fmt.Println("queens:", configurator.FormatCells(configurator.BoardQueens(m, s.Decisions())))
	// Output:
	// queens "": 92 solutions; 64 free, 0 blocked, 0 forced
	// queens "a1": 4 solutions; 22 free, 41 blocked, 0 forced
	// queens "a1,g2": 2 solutions; 10 free, 51 blocked, 1 forced
	// xxFxxxxx
	// xxxx..xx
	// x.x.xxxx
	// x.xxxxx.
	// xxxxx.x.
	// xxx..xxx
	// xxxxxxQx
	// Qxxxxxxx
	// cannot select "c4": the decisions force it the other way (+a1, +g2)
	// queens: a1,g2
}

// Explain says why a square is blocked or forced, in terms of the
// person's own queens (BoardReason says it in the board's words), and
// which of them to take off to free a blocked square.
func ExampleBoardReason() {
	ctx := context.Background()
	space := eightQueens(ctx)
	m := space.Model()
	s, err := configurator.NewFeatureSession(ctx, space, configurator.BoardDecisions(m, cells("a1,g2")))
	if err != nil {
		panic(err)
	}
	for _, c := range cells("a5,b3,c4,c8") {
		why, err := s.Explain(ctx, m.Var(c))
		if err != nil {
			panic(err)
		}
		_, text := configurator.BoardReason(m, why, why.Reasons[0])
		fmt.Printf("%v is %v: %s\n", c, configurator.BoardState(why.State), text)
	}

	c4 := m.Var(cells("c4")[0])
	room, err := s.MakeRoom(ctx, c4)
	if err != nil {
		panic(err)
	}
	fmt.Println("to free c4, take off", configurator.ListCells(configurator.BoardQueens(m, room)))
	for _, d := range room {
		if err := s.Undo(ctx, d.Feature); err != nil {
			panic(err)
		}
	}
	fmt.Println("then c4 is", configurator.BoardState(s.Domains().States[c4]))
	// Output:
	// a5 is blocked: attacked by a1
	// b3 is blocked: no solution holds queens on a1 and here
	// c4 is blocked: no solution holds queens on a1, g2 and here
	// c8 is forced: every solution with queens on a1, g2 has a queen here
	// to free c4, take off a1
	// then c4 is free
}

// eightQueens compiles the 8×8 board with the BDD backend, as
// ExampleCompile does.
func eightQueens(ctx context.Context) configurator.Board {
	model, err := configurator.New(8, configurator.RowMajor)
	if err != nil {
		panic(err)
	}
	space, err := bdd.New(bdd.Options{}).Compile(ctx, model)
	if err != nil {
		panic(err)
	}
	return space
}

// cells parses a list of cells in chess notation.
func cells(list string) []configurator.Cell {
	cells, err := configurator.ParseCells(list)
	if err != nil {
		panic(err)
	}
	return cells
}

// summary prints the solutions left under the session's queens and how
// many squares are in each state.
func summary(m *configurator.Model, s *configurator.FeatureSession) {
	d := s.Domains()
	fmt.Printf("queens %q: %v solutions; %d free, %d blocked, %d forced\n",
		configurator.FormatCells(configurator.BoardQueens(m, s.Decisions())), d.Configurations,
		len(d.In(configurator.Open)), len(d.In(configurator.ForcedOff)), len(d.In(configurator.ForcedOn)))
}

// board draws the squares of the board m under the domains d, rank 8
// first, as a chess board is seen: Q a queen placed, F a forced one, x a
// blocked square, . a free one.
func board(m *configurator.Model, d *configurator.Domains) string {
	marks := map[configurator.State]byte{configurator.Queen: 'Q', configurator.Forced: 'F', configurator.Blocked: 'x', configurator.Free: '.'}
	var b strings.Builder
	for row := m.N() - 1; row >= 0; row-- {
		for col := range m.N() {
			b.WriteByte(marks[configurator.BoardState(d.States[m.Var(configurator.Cell{Row: row, Col: col})])])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
