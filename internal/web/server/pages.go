package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/modelstate"
)

// page serves the one page (GET /): a model's address
// (/?model=ID&select=…) answers with the model page; a board's own address
// (/?n=8&q=a1,c5, and GET /play, where its controls sent their clicks)
// is redirected to the same board's model page (board.ModelHref), and the
// bare address to the default board's.
func (s *Server) page(c echo.Context) error {
	v, err := query(c)
	if err != nil {
		return s.modelFail(c, modelstate.State{}, err)
	}
	if v.Has("model") {
		return s.modelPage(c, v)
	}
	href, err := board.ModelHref(v, s.lineup)
	if err != nil {
		return s.modelFail(c, modelstate.State{Model: configurator.BoardID(s.lineup.Default().N)}, err)
	}
	if isHTMX(c.Request()) {
		c.Response().Header().Set("HX-Redirect", href)
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, href)
}

// notFound answers a GET of an address that names nothing with a notice
// and a way to a model.
func (s *Server) notFound(c echo.Context) error {
	if m := c.Request().Method; m != http.MethodGet && m != http.MethodHead {
		return echo.ErrNotFound
	}
	return s.modelFail(c, modelstate.State{}, echo.ErrNotFound)
}
