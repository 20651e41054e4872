package server

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/view"
	"github.com/nqueens/configurator/internal/web/words"
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

func (ordersRequest) fields() string { return boardRequest{}.fields() }

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
		b, err := s.apiBackend(name)
		if err == nil && !s.lineup.Ordered(b) {
			err = problem.New(http.StatusUnprocessableEntity, "The %s backend ignores the variable order: every order gives it the same space.", strings.ToUpper(b))
		}
		return b, err
	}
	for _, b := range s.lineup.Names() {
		if s.lineup.Ordered(b) {
			return b, nil
		}
	}
	return "", problem.New(http.StatusNotFound, "No backend of this server depends on the variable order.")
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
		out[i] = orderInfo{Order: o.String(), Label: words.Order(o)}
		k := spaces.Key{Backend: backend, N: n, Order: o}
		if cachedOnly && !s.spaces.Cached(k) {
			continue
		}
		wg.Go(func() {
			e, err := s.spaces.Get(ctx, k)
			if err != nil {
				if !cachedOnly {
					out[i].Error = problem.Describe(s.compileProblem(ctx, k, err)).Message
				}
				return
			}
			out[i].Bytes, out[i].CompileMS, out[i].Loaded = e.Bytes, ms(e.Took), e.Loaded()
			if p, ok := e.Space.(configurator.RankProfiler); ok {
				out[i].PerRank = p.RankProfile()
				for _, k := range out[i].PerRank {
					out[i].Nodes += k
				}
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
	n, err := s.apiSize(req.N, backend)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ordersResponse{N: n, Backend: backend, Orders: s.orders(c.Request().Context(), backend, n, false)})
}

// orderFacts is what the order panel of the n×n board shows: the figures
// of every order's space that the cache holds, and with compile the
// others too; nil when no backend of the server depends on the order or
// the board is beyond it.
func (s *Server) orderFacts(ctx context.Context, n int, compile bool) *view.OrderFacts {
	backend, err := s.orderedBackend("")
	if err != nil || n > s.lineup.MaxN(backend) {
		return nil
	}
	infos := s.orders(ctx, backend, n, !compile)
	f := &view.OrderFacts{Backend: backend, Budget: s.engines[backend].Budget, Slots: s.spaces.Slots()}
	for i, o := range configurator.Orders() {
		in := infos[i]
		fact := view.OrderFact{Made: in.PerRank != nil || in.CompileMS != 0, Nodes: in.Nodes, Bytes: in.Bytes,
			Took: time.Duration(in.CompileMS * float64(time.Millisecond)), Loaded: in.Loaded, PerRank: in.PerRank, Error: in.Error,
			Cost: s.engines[backend].Backend.Cost(n, o)}
		fact.File, fact.Filer = s.lineup.File(backend, n, o)
		f.Orders = append(f.Orders, fact)
	}
	return f
}

// ordersFragment answers the panel's button (GET /orders?n=..&compile=1):
// the panel again, with every order compiled within the budget.
func (s *Server) ordersFragment(c echo.Context) error {
	v, err := query(c)
	if err != nil {
		return err
	}
	n, err := board.ParseSize(v, s.lineup)
	if err != nil {
		return err
	}
	f := s.orderFacts(c.Request().Context(), n, v.Get("compile") == "1")
	if f == nil {
		return problem.New(http.StatusNotFound, "No backend of this server compiles a %d×%d diagram.", n, n)
	}
	return s.render(c, http.StatusOK, "orders", view.NewOrdersPanel(n, f))
}
