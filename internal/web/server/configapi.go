package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configfile"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// A configuration to take home (package configfile): POST
// /api/v1/configuration?format=featureide|kconfig|csv|json with the
// decisions answers the file, the person's decisions apart from what they
// force; POST /api/v1/configuration/read?model=ID&format=… with such a
// file as the body answers the decisions it holds, or the 422 of
// decisions no configuration keeps, with a minimal conflicting subset.
// The file's format may be left out of a read: it is told from the
// content.

// configReadPath is the route of a configuration read, whose body is a
// file up to models.MaxSize, not the guard's JSON body: its handler bounds
// it.
const configReadPath = "/api/v1/configuration/read"

// configFormat reads ?format= for a download: required.
func configFormat(c echo.Context) (configfile.Format, error) {
	f, err := configfile.ParseFormat(c.QueryParam("format"))
	if err != nil {
		return "", problem.New(http.StatusBadRequest, "?format=%s is not a configuration format: use featureide, kconfig, csv or json.", words.Quote(c.QueryParam("format")))
	}
	return f, nil
}

// apiConfiguration is POST /api/v1/configuration.
func (s *Server) apiConfiguration(c echo.Context) error {
	f, err := configFormat(c)
	if err != nil {
		return err
	}
	var req modelRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	mo, err := s.openModel(c, req)
	if err != nil {
		return modelError(c, err)
	}
	defer mo.done()
	return s.sendConfiguration(c, mo.model, mo.decisions, mo.session.Domains(), f)
}

// sendConfiguration answers the file of the decisions on m under d, as a
// download named after the model.
func (s *Server) sendConfiguration(c echo.Context, m *feature.Model, ds []configurator.Decision, d *configurator.Domains, f configfile.Format) error {
	var b bytes.Buffer
	err := configfile.Write(&b, m, configfile.New(m, ds, d), f)
	if errors.Is(err, configfile.ErrNotKconfig) {
		return problem.New(http.StatusUnprocessableEntity, "This model cannot be written as Kconfig lines: %s. Choose featureide, csv or json.", err)
	}
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", fileName(configurator.ModelName(m))+f.Ext()))
	return c.Blob(http.StatusOK, f.MediaType(), b.Bytes())
}

// fileName makes a model's name a file's: letters, digits, '-', '_' and
// '.', the rest '_'.
func fileName(name string) string {
	out := []rune(name)
	for i, r := range out {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			out[i] = '_'
		}
	}
	if len(out) > 80 {
		out = out[:80]
	}
	return string(out)
}

// configReadResponse is the answer of a configuration read: the decisions
// the file holds, in the model's order.
type configReadResponse struct {
	Model string `json:"model"`
	decisionsJSON
}

// apiReadConfiguration is POST /api/v1/configuration/read.
func (s *Server) apiReadConfiguration(c echo.Context) error {
	req := c.Request()
	if err := uploadContentType(req.Header.Get(echo.HeaderContentType)); err != nil {
		return err
	}
	id := c.QueryParam("model")
	if id == "" {
		return problem.New(http.StatusBadRequest, "Say which model the configuration is of: ?model= is the ID that POST /api/v1/models gave (GET /api/v1/models lists them).")
	}
	var format configfile.Format
	if c.QueryParam("format") != "" {
		var err error
		if format, err = configFormat(c); err != nil {
			return err
		}
	}
	src, err := readFile(c, "configuration")
	if err != nil {
		return err
	}
	if format == "" {
		format = configfile.Detect(src)
	}
	m, _, err := s.models.Model(req.Context(), id)
	if err != nil {
		return s.modelProblem(id, "", err)
	}
	conf, err := configfile.Read(src, m, format)
	var fe *feature.Error
	var ue *configfile.UnknownError
	switch {
	case errors.As(err, &fe):
		return c.JSON(http.StatusBadRequest, parseErrorJSON{Error: fmt.Sprintf("The configuration (read as %s) does not read: %s", format, fe), Line: fe.Line, Column: fe.Column, Quote: fe.Quote})
	case errors.As(err, &ue):
		quoted := make([]string, len(ue.Names))
		for i, n := range ue.Names {
			quoted[i] = words.Quote(n)
		}
		if ue.More > 0 {
			quoted = append(quoted, fmt.Sprintf("%d more", ue.More))
		}
		return problem.New(http.StatusBadRequest, "The configuration names features the model does not have: %s.", words.List(quoted, "and"))
	case err != nil:
		return err
	}
	ds := conf.Decisions()
	sel, desel := configurator.DecisionNames(m, ds)
	mo, err := s.openModel(c, modelRequest{Model: &id, Select: sel, Deselect: desel, Backend: c.QueryParam("backend")})
	if err != nil {
		return modelError(c, err)
	}
	mo.done()
	return c.JSON(http.StatusOK, configReadResponse{Model: id, decisionsJSON: decisionsJSON{Select: sel, Deselect: desel}})
}

// readFile reads a request's body, a file of at most models.MaxSize: 413
// past it, 400 when empty.
func readFile(c echo.Context, what string) ([]byte, error) {
	req := c.Request()
	if req.ContentLength > models.MaxSize {
		return nil, tooBig(what, req.ContentLength)
	}
	src, err := io.ReadAll(http.MaxBytesReader(c.Response(), req.Body, models.MaxSize))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, tooBig(what, -1)
	case err != nil:
		return nil, problem.New(http.StatusBadRequest, "The %s file could not be read.", what)
	case len(src) == 0:
		return nil, problem.New(http.StatusBadRequest, "The request body is empty: send the %s file as the body.", what)
	}
	return src, nil
}

// modelConfiguration is GET /model-configuration?model=ID&select=..&
// deselect=..&backend=..&format=..: the model page's download of the
// decisions as a file, what they force found by the first backend of the
// page's mode that has the model ready.
func (s *Server) modelConfiguration(c echo.Context) error {
	f, err := configFormat(c)
	if err != nil {
		return err
	}
	mo, _, err := s.openPage(c.Request().Context(), c.QueryParams(), func(configurator.Space) bool { return true })
	if err != nil {
		return err
	}
	defer mo.done()
	return s.sendConfiguration(c, mo.model, mo.decisions, mo.session.Domains(), f)
}
