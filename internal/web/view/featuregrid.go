package view

import (
	"fmt"

	"github.com/nqueens/configurator/configurator"
)

// FeatureGrid is the main panel of a model laid out on a grid (a board):
// a square per feature, where the rows and files of the grid put it. A
// free square, clicked, selects its feature (a queen) or, with RuleOut,
// deselects it (a square ruled out); a decided one takes the decision
// back; a forced one asks why.
type FeatureGrid struct {
	Label, Size string
	Files       []string
	Rows        []FeatureGridRow
	// RuleOut is the control that makes a click rule a square out rather
	// than select it; Queens names the selection as a queen.
	RuleOut, Queens bool
	Heat            bool // free squares shaded by their share
	// ShareNote says why the squares show no share, when they do not.
	ShareNote string
}

// FeatureGridRow is one row of the grid, labelled as the board labels
// its ranks.
type FeatureGridRow struct {
	Label string
	Cells []FeatureGridCell
}

// FeatureGridCell is one square: its feature's row of the list, drawn as
// a square, and the step a click on it asks for (Param=Name).
type FeatureGridCell struct {
	*FeatureRow
	Class, Param, Title, Glyph string
	// Tab is the square's tabindex: 0 for the one square of the grid in
	// the tab order (the arrow keys move from it, grid.js), -1 for the
	// others.
	Tab int
}

// gridClasses are the classes of a square by its feature's state, the
// board's own, and "ruled" for a square the person ruled out.
var gridClasses = map[string]string{"free": "free", "select": "queen", "deselect": "ruled", "forced_on": "forced", "forced_off": "blocked"}

// featureGrid lays out the features of l's model on its grid, the last
// row at the top as on a chess diagram when the grid is a board.
func featureGrid(l *lister, ruleOut bool) *FeatureGrid {
	g := l.m.Grid
	fg := &FeatureGrid{Label: fmt.Sprintf("%d by %d grid of features", g.Rows, g.Cols), RuleOut: ruleOut, Queens: g.Queens,
		Heat: l.shares != nil}
	if g.Queens {
		fg.Label = fmt.Sprintf("%d by %d board", g.Rows, g.Cols)
	}
	fg.Size = boardSize(max(g.Rows, g.Cols))
	for c := range g.Cols {
		fg.Files = append(fg.Files, configurator.FileName(c))
	}
	for i := range g.Rows {
		r := i
		if g.Queens {
			r = g.Rows - 1 - i
		}
		row := FeatureGridRow{Label: fmt.Sprint(r + 1)}
		for c := range g.Cols {
			f := r*g.Cols + c
			cell := FeatureGridCell{FeatureRow: l.row(f)}
			cell.Class = "cell " + gridClasses[cell.State]
			if (r+c)%2 == 0 {
				cell.Class += " dark"
			} else {
				cell.Class += " light"
			}
			if cell.Heat > 0 || cell.Share != "" {
				cell.Class += fmt.Sprintf(" heat-%d", cell.Heat)
			}
			if cell.Asked {
				cell.Class += " asked"
			}
			switch {
			case cell.CanDecide:
				cell.Param, cell.Title = "square", cell.Name+": free; click to select it"
				if g.Queens {
					cell.Title = cell.Name + ": free; click to place a queen"
				}
				if ruleOut {
					cell.Title = cell.Name + ": free; click to rule it out"
				}
			case cell.CanUndo:
				cell.Param, cell.Title = "undo", cell.Name+": "+cell.StateText+"; click to take it back"
			case cell.CanWhy:
				cell.Param, cell.Title = "ask", cell.Name+": "+cell.StateText+"; click to ask why"
			}
			switch cell.State {
			case "select":
				cell.Glyph = "queen"
			case "forced_on":
				cell.Glyph = "forced"
			}
			if cell.Share != "" {
				cell.Title += " (" + cell.Share + " of the configurations left)"
			}
			row.Cells = append(row.Cells, cell)
		}
		fg.Rows = append(fg.Rows, row)
	}
	// The square in the tab order: the one asked about, else the first a
	// person can decide, else the first.
	var asked, free *FeatureGridCell
	for i := range fg.Rows {
		for j := range fg.Rows[i].Cells {
			c := &fg.Rows[i].Cells[j]
			c.Tab = -1
			if c.Asked && asked == nil {
				asked = c
			}
			if c.CanDecide && free == nil {
				free = c
			}
		}
	}
	switch {
	case asked != nil:
		asked.Tab = 0
	case free != nil:
		free.Tab = 0
	case len(fg.Rows) > 0 && len(fg.Rows[0].Cells) > 0:
		fg.Rows[0].Cells[0].Tab = 0
	}
	return fg
}

// boardSize is the class that sizes a board of n squares a side: its
// squares, labels and marks shrink as it grows.
func boardSize(n int) string {
	switch {
	case n <= 8:
		return "size-s"
	case n <= 14:
		return "size-m"
	case n <= 22:
		return "size-l"
	}
	return "size-xl"
}
