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

// A session is one person's placement: each queen placed is analysed at
// once, every cell classified as free, blocked or forced, and the solutions
// that remain counted.
func ExampleSession() {
	ctx := context.Background()
	space := eightQueens(ctx)
	s, err := configurator.NewSession(ctx, space, nil)
	if err != nil {
		panic(err)
	}
	summary(s)
	for _, c := range cells("a1,g2") {
		if err := s.Place(ctx, c); err != nil {
			panic(err)
		}
		summary(s)
	}
	fmt.Print(board(s.Analysis()))

	// A queen on a blocked cell is refused, and the session stays as it was.
	c4 := configurator.Cell{Row: 3, Col: 2}
	fmt.Println(s.Place(ctx, c4))
	fmt.Println("queens:", configurator.FormatCells(s.Queens()))
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
	// place c4: cell is blocked
	// queens: a1,g2
}

// Play is one click of the page: the session that results from the queens
// on the board, some taken off, and one placed. A placement on a blocked
// cell is refused with the reason.
func ExamplePlay() {
	ctx := context.Background()
	space := eightQueens(ctx)
	queens := cells("a1,g2")
	c4 := configurator.Cell{Row: 3, Col: 2}
	_, err := configurator.Play(ctx, space, queens, nil, &c4)
	fmt.Println(err)

	// Taking a1 off in the same click makes room for c4.
	s, err := configurator.Play(ctx, space, queens, queens[:1], &c4)
	if err != nil {
		panic(err)
	}
	summary(s)
	// Output:
	// c4 is blocked: no solution holds queens on a1, g2 and here
	// queens "g2,c4": 2 solutions; 8 free, 52 blocked, 2 forced
}

// Explain says why a cell is blocked or forced, in terms of the person's
// own queens, and MakeRoom which of them to take off to free a blocked
// cell.
func ExampleSession_Explain() {
	ctx := context.Background()
	space := eightQueens(ctx)
	queens := cells("a1,g2")
	s, err := configurator.NewSession(ctx, space, queens)
	if err != nil {
		panic(err)
	}
	explained := cells("a5,b3,c4,c8")
	for _, c := range explained {
		why, err := s.Explain(ctx, c)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%v is %v: %v\n", c, why.State, why)
	}

	c4 := explained[2]
	room, err := s.MakeRoom(ctx, c4)
	if err != nil {
		panic(err)
	}
	fmt.Println("to free c4, take off", configurator.ListCells(room))
	if err := s.Remove(ctx, room...); err != nil {
		panic(err)
	}
	fmt.Println("then c4 is", s.Analysis().At(c4))
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
func eightQueens(ctx context.Context) configurator.Space {
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

// summary prints the solutions left under the session's placement and how
// many cells are in each state.
func summary(s *configurator.Session) {
	a := s.Analysis()
	fmt.Printf("queens %q: %v solutions; %d free, %d blocked, %d forced\n",
		configurator.FormatCells(s.Queens()), a.Solutions,
		len(a.In(configurator.Free)), len(a.In(configurator.Blocked)), len(a.In(configurator.Forced)))
}

// board draws an analysis rank 8 first, as a chess board is seen: Q a
// queen placed, F a forced one, x a blocked cell, . a free one.
func board(a *configurator.Analysis) string {
	marks := map[configurator.State]byte{configurator.Queen: 'Q', configurator.Forced: 'F', configurator.Blocked: 'x', configurator.Free: '.'}
	var b strings.Builder
	for row := a.N - 1; row >= 0; row-- {
		for col := range a.N {
			b.WriteByte(marks[a.At(configurator.Cell{Row: row, Col: col})])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
