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

// rankProfiler is a space made of a decision diagram that can say how its
// nodes spread over the board's ranks: per rank r (0-based), the nodes
// labelled by the cells of rank r+1 in the space's order, summing to the
// diagram's nodes. The BDD backend's spaces are.
type rankProfiler interface {
	RankProfile() []int
}

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
			if p, ok := e.space.(rankProfiler); ok {
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
	// Missing counts the orders not compiled yet; Compile is the htmx
	// request that compiles them, Heavy warns that it takes a while.
	Missing int
	Compile string
	Heavy   bool
	Chart   *chartView
}

// orderRow is one order in the panel.
type orderRow struct {
	Label, Nodes, Bytes, Took, Error string
	Current, Known                   bool
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
	for i, o := range configurator.Orders() {
		in := infos[i]
		row := orderRow{Label: in.Label, Current: o == st.Order, Error: in.Error}
		switch {
		case in.Error != "":
		case in.PerRank == nil && in.CompileMS == 0:
			v.Missing++
			if s.heavyCompile(spaceKey{backend: backend, n: st.N, order: o}) {
				v.Heavy = true
			}
		default:
			row.Known = true
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
		}
		v.Rows = append(v.Rows, row)
	}
	if v.Missing > 0 {
		v.Compile = "/orders?" + st.query() + "&compile=1"
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
