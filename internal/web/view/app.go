// Package view is what the web server's pages show: the view models that
// the templates (package frontend) render, and the functions that build
// them from what the server hands over. A view is handed everything it
// shows: a step's answers and the facts of the spaces behind them
// (ModelStep), the order panel's figures (OrderFacts). Building a view
// never calls the cache of compiled spaces or a backend, so that one click
// passes each of the server's packages once, down to the backends and
// back up to the page.
//
// The view models hold strings ready to print, so that the templates stay
// free of logic; their words come from package words. The model page is
// built in model.go and the files beside it, from the parts in app.go
// (Link, Notice) and the charts of chart.go; the templates are parsed in
// templates.go.
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
// new tab, or without JavaScript).
type Link struct {
	Label, Href, Title string
	Current            bool
}

// Field is a hidden input of a form.
type Field struct{ Name, Value string }

// Option is an entry of a select.
type Option struct {
	Value, Label string
	Selected     bool
}

// Notice is a message above the board: Text, then Command (a command
// line the message gives, shown as code) and After, the rest of the
// sentence.
type Notice struct {
	Kind                 string // "error" or "info"
	Text, Command, After string
	// Alt links to a board that would serve what was asked.
	Alt, AltLabel string
}

// NoticeOf turns a problem into a notice.
func NoticeOf(p *problem.Problem) *Notice {
	kind := "error"
	if p.Status < 400 {
		kind = "info"
	}
	n := &Notice{Kind: kind, Text: p.Message, Alt: p.Alt, AltLabel: p.AltLabel}
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
