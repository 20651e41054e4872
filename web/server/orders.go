package server

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// What the variable order does: the same board compiled in every order,
// each diagram's nodes, bytes and compile time, and its profile (nodes per
// board rank). The JSON API answers POST /api/v1/orders; the page shows
// the same figures in its order panel (GET /orders, an htmx fragment).

// orderInfo is one order's diagram, or why there is none.
type orderInfo struct {
	Order     string  `json:"order"`
	Label     string  `json:"label"`
	Nodes     int     `json:"nodes,omitempty"`
	Bytes     int64   `json:"bytes,omitempty"`
	CompileMS float64 `json:"compile_ms,omitempty"`
	// Loaded: the diagram was read from the disk cache, and CompileMS is
	// the load's time, not a compile's.
	Loaded  bool   `json:"loaded,omitempty"`
	PerRank []int  `json:"per_rank,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ordersRequest is the body of POST /api/v1/orders.
type ordersRequest struct {
	N       *int   `json:"n"`
	Backend string `json:"backend"`
}

// ordersResponse is its answer.
type ordersResponse struct {
	N       int         `json:"n"`
	Backend string      `json:"backend"`
	Orders  []orderInfo `json:"orders"`
}

// orderedBackend is the backend whose diagram the orders panel shows: the
// one named, or the first registered whose space depends on the order.
func (s *Server) orderedBackend(name string) (string, error) {
	if name != "" {
		m, ok := s.lim.parseMode(name)
		if !ok || m == modeAll {
			return "", problemf(http.StatusBadRequest, "%s is not a backend: use %s.", quote(name), s.lim.choices(false, true))
		}
		if !s.lim.ordered[string(m)] {
			return "", problemf(http.StatusUnprocessableEntity, "The %s backend ignores the variable order: every order gives it the same space.", strings.ToUpper(string(m)))
		}
		return string(m), nil
	}
	for _, b := range s.lim.names {
		if s.lim.ordered[b] {
			return b, nil
		}
	}
	return "", problemf(http.StatusNotFound, "No backend of this server depends on the variable order.")
}

// orders compiles (or finds in the cache) the n×n board in every order,
// at once, each within the backend's budget and the request's deadline:
// an order that fails gets its error in words. With cachedOnly it
// compiles nothing and leaves out the orders not yet compiled.
func (s *Server) orders(ctx context.Context, backend string, n int, cachedOnly bool) []orderInfo {
	all := configurator.Orders()
	out := make([]orderInfo, len(all))
	if cachedOnly {
		// A space evicted since Cached said yes is missing, not compiled:
		// the cache answers a cancelled context at once.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		cancel()
	}
	var wg sync.WaitGroup
	for i, o := range all {
		out[i] = orderInfo{Order: o.String(), Label: orderLabels[o]}
		k := spaceKey{backend: backend, n: n, order: o}
		if cachedOnly && !s.cache.Cached(k) {
			continue
		}
		wg.Go(func() {
			e, err := s.cache.Get(ctx, k)
			if err != nil {
				if !cachedOnly {
					out[i].Error = describe(s.compileProblem(ctx, k, err)).Message
				}
				return
			}
			out[i].Bytes, out[i].CompileMS, out[i].Loaded = e.bytes, ms(e.took), e.loaded()
			if p, ok := e.space.(configurator.RankProfiler); ok {
				out[i].PerRank = p.RankProfile()
				out[i].Nodes = sum(out[i].PerRank)
			}
		})
	}
	wg.Wait()
	return out
}

func (s *Server) apiOrders(c echo.Context) error {
	var req ordersRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	backend, err := s.orderedBackend(req.Backend)
	if err != nil {
		return err
	}
	if req.N == nil {
		return problemf(http.StatusBadRequest, "Say the board size: \"n\" is required, a whole number from 1 to %d.", s.lim.maxN[backend])
	}
	n := *req.N
	if n < 1 || n > configurator.MaxN {
		return problemf(http.StatusBadRequest, "\"n\" is %d; it must be from 1 to %d.", n, s.lim.maxN[backend])
	}
	if n > s.lim.maxN[backend] {
		return tooLarge(n, mode(backend), s.lim)
	}
	return c.JSON(http.StatusOK, ordersResponse{N: n, Backend: backend, Orders: s.orders(c.Request().Context(), backend, n, false)})
}

// ordersView is the order panel.
type ordersView struct {
	N       int
	Backend string
	Rows    []orderRow
	// Compile is the htmx request that makes the orders the cache does
	// not hold yet, Button its label and Hint what it costs; "" when
	// every order is held or none can be made here. Unservable says, in
	// one sentence, why the orders without their compiled file are not
	// offered.
	Compile, Button, Hint string
	Unservable            string
	Chart                 *chartView
}

// orderRow is one order in the panel. Command, of an order served from
// its compiled file alone whose file is missing (NoFile), makes the file.
type orderRow struct {
	Label, Nodes, Bytes, Took, Error string
	Current, Known, NoFile           bool
	Command                          string
}

// ordersPanel builds the order panel of a state: every order's figures
// that the cache holds, and with compile the others too.
func (s *Server) ordersPanel(ctx context.Context, st boardState, compile bool) *ordersView {
	backend, err := s.orderedBackend("")
	if err != nil || st.N > s.lim.maxN[backend] {
		return nil
	}
	v := &ordersView{N: st.N, Backend: strings.ToUpper(backend)}
	infos := s.orders(ctx, backend, st.N, !compile)
	var lines []series
	var pend pendingOrders
	for i, o := range configurator.Orders() {
		in := infos[i]
		row := orderRow{Label: in.Label, Current: o == st.Order, Error: in.Error}
		switch f, filer := s.lim.file(backend, st.N, o); {
		case in.PerRank != nil || in.CompileMS != 0:
			row.Known = true
			pend.other = pend.other || row.Current
			row.Nodes = group(big.NewInt(int64(in.Nodes)))
			row.Bytes = bytesize.Format(in.Bytes)
			row.Took = duration(time.Duration(in.CompileMS * float64(time.Millisecond)))
			if in.Loaded {
				row.Took += " (loaded from disk)"
			}
			if in.PerRank != nil {
				l := series{name: in.Label, label: func(x, y float64) string {
					return fmt.Sprintf("rank %d, %s nodes", int(x), group(big.NewInt(int64(y))))
				}}
				for r, nodes := range in.PerRank {
					l.xs, l.ys = append(l.xs, float64(r+1)), append(l.ys, float64(nodes))
				}
				lines = append(lines, l)
			}
		case filer && f.Missing():
			// Only its file serves it, and there is none: a compile
			// would only fail.
			row.NoFile, row.Command, row.Error = true, f.Command, ""
			pend.noFile = append(pend.noFile, in.Label)
			pend.commands = pend.commands || f.Command != ""
		case in.Error != "":
		case filer && f.Path != "":
			pend.load = append(pend.load, in.Label)
			pend.loadBytes += f.Bytes
		default:
			pend.compile = append(pend.compile, in.Label)
			if c := s.backends[backend].Backend.Cost(st.N, o); c.Heavy {
				pend.heavy, pend.bytes = true, max(pend.bytes, c.Bytes)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	if len(pend.compile)+len(pend.load) > 0 {
		v.Compile = "/orders?" + st.query() + "&compile=1"
		v.Button = pend.button()
		if pend.heavy || len(pend.load) > 0 {
			v.Hint = pend.hint(v.Backend, s.backends[backend].Budget, s.cache.slots)
		}
	}
	if len(pend.noFile) > 0 {
		v.Unservable = pend.unservable(v.Backend, st.N)
	}
	if len(lines) > 0 {
		var xticks []float64
		step := max(1, (st.N+7)/8)
		for r := 1; r <= st.N; r += step {
			xticks = append(xticks, float64(r))
		}
		v.Chart = lineChart("rank-chart", fmt.Sprintf("Nodes of the %d×%d diagram per board rank, in each order", st.N, st.N), lines,
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
		h := fmt.Sprintf("compiling %s is heavy: the %s expects about %s%s%s, for a while", andList(p.compile), backend, bytesize.Format(p.bytes), each, at)
		if budget > 0 {
			h += fmt.Sprintf(", and stops an order that outgrows its node budget of %s", bytesize.Format(budget))
		}
		parts = append(parts, h)
	}
	if len(p.load) > 0 {
		parts = append(parts, fmt.Sprintf("loading %s reads %s from disk", andList(p.load), bytesize.Format(p.loadBytes)))
	}
	return upperFirst(strings.Join(parts, "; ")) + "."
}

// unservable says in one sentence why the orders without their compiled
// file are not offered, and what makes them.
func (p pendingOrders) unservable(backend string, n int) string {
	quoted := make([]string, len(p.noFile))
	for i, l := range p.noFile {
		quoted[i] = quoteLabel(l)
	}
	what := fmt.Sprintf("in the order %s only from its compiled file", quoted[0])
	if len(quoted) > 1 {
		what = fmt.Sprintf("in the orders %s only from their compiled files", andList(quoted))
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

// orderCount is "1 order" or "3 orders".
func orderCount(n int) string {
	if n == 1 {
		return "1 order"
	}
	return strconv.Itoa(n) + " orders"
}

// andList joins labels as "a, b and c".
func andList(l []string) string {
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " and " + l[len(l)-1]
}

// ordersFragment answers the panel's button (GET /orders?n=..&compile=1):
// the panel again, with every order compiled within the budget.
func (s *Server) ordersFragment(c echo.Context) error {
	st, err := s.queryState(c)
	if err != nil {
		return err
	}
	v := s.ordersPanel(c.Request().Context(), st, c.QueryParam("compile") == "1")
	if v == nil {
		return problemf(http.StatusNotFound, "No backend of this server compiles a %d×%d diagram.", st.N, st.N)
	}
	return s.render(c, http.StatusOK, "orders", v)
}
