// Package view is what the web server's pages show: the view models that
// the templates (package frontend) render, and the functions that build
// them from what the server hands over. A view is handed everything it
// shows: a step's answers and the facts of the spaces behind them (Step),
// how each board the page links to begins (Prep), the order panel's
// figures (OrderFacts), a compile's progress (Preparing). Building a view
// never calls the cache of compiled spaces or a backend, so that one click
// passes each of the server's packages once, down to the backends and
// back up to the page.
//
// The view models hold strings ready to print, so that the templates stay
// free of logic; their words come from package words.
//
// The board page's views are in app.go (the controls and the grid),
// panel.go (Why? and Make room), timing.go, orders.go and progress.go,
// built from what step.go says a step hands over; the charts in chart.go
// and scaling.go; the templates are parsed in templates.go. A page of another kind adds its own
// files beside these, built from the same parts (Page, Link, Notice,
// Setting, Chart).
package view

import (
	"math"
	"math/big"
	"strings"

	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/problem"
)

// Site is what every page shows whatever its board: the backends the page
// offers, a line on what each does, and the figures of the server's own.
type Site struct {
	Lineup *board.Lineup
	Titles map[string]string // by backend name
	// Version is a digest of the static files, for cache busting.
	Version string
}

// Link is an action of the page: Href is the shareable address (for a
// new tab, or without JavaScript), Play the htmx request.
type Link struct {
	Label, Href, Play, Title string
	Current, Primary         bool
}

// Field is a hidden input of a form.
type Field struct{ Name, Value string }

// Option is an entry of a select.
type Option struct {
	Value, Label string
	Selected     bool
}

// Setting is the form of a select that changes one setting, the board's
// size or the variable order, as soon as it changes.
type Setting struct {
	ID, Name     string // the select's id (and the form's class), the query parameter it sets
	Label, Title string
	Options      []Option
	Hidden       []Field // the other settings
	// Disabled is set, with Reason, where the setting has no effect.
	Disabled bool
	Reason   string
}

// Notice is a message above the board: Text, then Command (a command
// line the message gives, shown as code) and After, the rest of the
// sentence.
type Notice struct {
	Kind                 string // "error" or "info"
	Text, Command, After string
	Status               int
	// Alt links to a board that would serve what was asked.
	Alt, AltLabel string
}

// NoticeOf turns a problem into a notice.
func NoticeOf(p *problem.Problem) *Notice {
	kind := "error"
	if p.Status < 400 {
		kind = "info"
	}
	n := &Notice{Kind: kind, Text: p.Message, Status: p.Status, Alt: p.Alt, AltLabel: p.AltLabel}
	if before, after, ok := strings.Cut(p.Message, p.Command); ok && p.Command != "" {
		n.Text, n.Command, n.After = before, p.Command, after
	}
	return n
}

// Agreement is the badge of Both.
type Agreement struct {
	Agree   bool
	Text    string
	Details []string
}

// heatLevel maps a share in percent to one of ten shades. The scale is
// absolute but stretched (square root), so that the small shares of a
// large board still show while 50% and 100% stay apart.
func heatLevel(pct int) int {
	return min(9, int(math.Round(9*math.Sqrt(float64(max(pct, 0))/100))))
}

// share is part/total in whole percent, rounded to nearest.
func share(part, total *big.Int) int {
	x := new(big.Int).Mul(part, big.NewInt(200))
	x.Add(x, total)
	x.Quo(x, new(big.Int).Mul(total, big.NewInt(2)))
	return int(x.Int64())
}
