package view

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/web/words"
)

// OrderFacts is what the server knows of one board's spaces in every
// variable order, for the order panel: the backend whose diagrams the
// panel shows, its node budget (0 when none bounds it), the heavy compiles
// that run at once, and each order's figures.
type OrderFacts struct {
	Backend string
	Budget  int64
	Slots   int
	Orders  []OrderFact // one per configurator.Orders(), in that order
}

// OrderFact is one order's space: its figures when it is made (compiled,
// or loaded from its saved file), why it could not be made, and what
// making it takes (its file, when the backend keeps files, and the
// backend's estimate of its compile).
type OrderFact struct {
	Made    bool
	Nodes   int
	Bytes   int64
	Took    time.Duration
	Loaded  bool
	PerRank []int // nil when the space does not profile its ranks
	Error   string
	File    configurator.SpaceFile
	Filer   bool
	Cost    configurator.Cost
}

// OrdersPanel is the order panel.
type OrdersPanel struct {
	N       int
	Backend string
	Rows    []OrderRow
	// Compile is the htmx request that makes the orders the cache does
	// not hold yet, Button its label and Hint what it costs; "" when
	// every order is held or none can be made here. Unservable says, in
	// one sentence, why the orders without their compiled file are not
	// offered.
	Compile, Button, Hint string
	Unservable            string
	Chart                 *Chart
}

// OrderRow is one order in the panel. Command, of an order served from
// its compiled file alone whose file is missing (NoFile), makes the file.
type OrderRow struct {
	Label, Nodes, Bytes, Took, Error string
	Current, Known, NoFile           bool
	Command                          string
}

// NewOrdersPanel builds the order panel of the n×n board, whose page
// shows its row-order space, from the figures of its spaces in every
// order.
func NewOrdersPanel(n int, f *OrderFacts) *OrdersPanel {
	v := &OrdersPanel{N: n, Backend: strings.ToUpper(f.Backend)}
	var lines []series
	var pend pendingOrders
	for i, o := range configurator.Orders() {
		in := f.Orders[i]
		label := words.Order(o)
		row := OrderRow{Label: label, Current: o == configurator.RowMajor, Error: in.Error}
		switch {
		case in.Made:
			row.Known = true
			pend.other = pend.other || row.Current
			row.Nodes = words.Number(int64(in.Nodes))
			row.Bytes = bytesize.Format(in.Bytes)
			row.Took = words.Duration(in.Took)
			if in.Loaded {
				row.Took += " (loaded from disk)"
			}
			if in.PerRank != nil {
				l := series{name: label, label: func(x, y float64) string {
					return fmt.Sprintf("rank %d, %s nodes", int(x), words.Number(int64(y)))
				}}
				for r, nodes := range in.PerRank {
					l.xs, l.ys = append(l.xs, float64(r+1)), append(l.ys, float64(nodes))
				}
				lines = append(lines, l)
			}
		case in.Filer && in.File.Missing():
			// Only its file serves it, and there is none: a compile
			// would only fail.
			row.NoFile, row.Command, row.Error = true, in.File.Command, ""
			pend.noFile = append(pend.noFile, label)
			pend.commands = pend.commands || in.File.Command != ""
		case in.Error != "":
		case in.Filer && in.File.Path != "":
			pend.load = append(pend.load, label)
			pend.loadBytes += in.File.Bytes
		default:
			pend.compile = append(pend.compile, label)
			if in.Cost.Heavy {
				pend.heavy, pend.bytes = true, max(pend.bytes, in.Cost.Bytes)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	if len(pend.compile)+len(pend.load) > 0 {
		v.Compile = fmt.Sprintf("/orders?n=%d&compile=1", n)
		v.Button = pend.button()
		if pend.heavy || len(pend.load) > 0 {
			v.Hint = pend.hint(v.Backend, f.Budget, f.Slots)
		}
	}
	if len(pend.noFile) > 0 {
		v.Unservable = pend.unservable(v.Backend, n)
	}
	if len(lines) > 0 {
		var xticks []float64
		step := max(1, (n+7)/8)
		for r := 1; r <= n; r += step {
			xticks = append(xticks, float64(r))
		}
		v.Chart = lineChart("rank-chart", fmt.Sprintf("Nodes of the %d×%d diagram per board rank, in each order", n, n), lines,
			countAxis, xticks,
			func(x float64) string { return strconv.Itoa(int(x)) })
		if v.Chart != nil {
			v.Chart.XLabel, v.Chart.YLabel = "rank", "nodes"
		}
	}
	return v
}

// pendingOrders are the orders of the panel the cache does not hold: by
// their labels, those the button compiles, those it loads from their
// compiled files (loadBytes in all), and those it cannot serve. heavy
// marks a compile that takes long, bytes the most one of them is expected
// to hold, as the backend estimates it (configurator.Cost).
type pendingOrders struct {
	compile, load, noFile []string
	loadBytes, bytes      int64
	heavy                 bool
	// other: the current order is made, and the others are pending.
	other bool
	// commands: the backend says the commands that make the missing
	// files (it keeps a directory of them).
	commands bool
}

// button is the label of the button that makes the pending orders.
func (p pendingOrders) button() string {
	count := func(n int) string {
		if p.other {
			switch {
			case len(p.noFile) > 0:
				return strings.Replace(orderCount(n), " order", " other order", 1)
			case n == 1:
				return "the other order"
			}
			return fmt.Sprintf("the other %d orders", n)
		}
		return orderCount(n)
	}
	switch {
	case len(p.load) == 0:
		return "Compile " + count(len(p.compile))
	case len(p.compile) == 0:
		return "Load " + count(len(p.load)) + " from disk"
	}
	return fmt.Sprintf("Compile %s, load %s", orderCount(len(p.compile)), orderCount(len(p.load)))
}

// orderCount is "1 order" or "3 orders".
func orderCount(n int) string { return words.Plural(int64(n), "order") }

// hint says what the button costs: the compiles' memory and how many run
// at once, and the bytes the loads read.
func (p pendingOrders) hint(backend string, budget int64, slots int) string {
	var parts []string
	if len(p.compile) > 0 && p.heavy {
		each := ""
		if len(p.compile) > 1 {
			each = " each"
		}
		at := ""
		if len(p.compile) > slots {
			at = fmt.Sprintf(", %d at a time", slots)
		}
		h := fmt.Sprintf("compiling %s is heavy: the %s expects about %s%s%s, for a while", words.List(p.compile, "and"), backend, bytesize.Format(p.bytes), each, at)
		if budget > 0 {
			h += fmt.Sprintf(", and stops an order that outgrows its node budget of %s", bytesize.Format(budget))
		}
		parts = append(parts, h)
	}
	if len(p.load) > 0 {
		parts = append(parts, fmt.Sprintf("loading %s reads %s from disk", words.List(p.load, "and"), bytesize.Format(p.loadBytes)))
	}
	return words.UpperFirst(strings.Join(parts, "; ")) + "."
}

// unservable says in one sentence why the orders without their compiled
// file are not offered, and what makes them.
func (p pendingOrders) unservable(backend string, n int) string {
	quoted := make([]string, len(p.noFile))
	for i, l := range p.noFile {
		quoted[i] = words.Curly(l)
	}
	what := fmt.Sprintf("in the order %s only from its compiled file", quoted[0])
	if len(quoted) > 1 {
		what = fmt.Sprintf("in the orders %s only from their compiled files", words.List(quoted, "and"))
	}
	msg := fmt.Sprintf("The %s serves the %d×%d board %s, which this server does not have: ", backend, n, n, what)
	if !p.commands {
		return msg + "it keeps no directory of compiled files."
	}
	if len(quoted) > 1 {
		return msg + "make one once with the command in its row and restart the server."
	}
	return msg + "make it once with the command in its row and restart the server."
}
