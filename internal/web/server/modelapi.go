package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// The JSON API of feature models: POST /api/v1/models (an upload), GET
// /api/v1/models (the list), and the model forms of POST /api/v1/analyze,
// /explain, /complete and /diagram, told from the board's by their "model"
// field (modelOrBoard).
// Features are named as the model names them; decisions come with every
// request, as the board's queens do. Errors are {"error": ...} as the
// board's, with 400 for a malformed request or an unknown feature, 404
// for an unknown model, 413 for a file or model too large, 415 for an
// upload sent as a form, 422 for decisions no configuration keeps (with a
// minimal conflicting subset of them) or a construct a Boolean model
// cannot express; a file that does not parse says where.

// modelJSON describes a model: the answer of an upload, and each model of
// the list (Example marks a bundled one there).
type modelJSON struct {
	Model       string         `json:"model"`
	Name        string         `json:"name"`
	Format      feature.Format `json:"format"`
	Features    int            `json:"features"`
	Constraints int            `json:"constraints"`
	Example     *bool          `json:"example,omitempty"`
	// Board is the size of a built-in board (queens-N), whose features
	// are its squares.
	Board int `json:"board,omitempty"`
}

func newModelJSON(in models.Info) modelJSON {
	return modelJSON{Model: in.ID, Name: in.Name, Format: in.Format, Features: in.Features, Constraints: in.Constraints, Board: in.Board}
}

// modelsResponse is the answer of GET /api/v1/models: a page of the list
// (the bundled examples first, then the built-in boards by size, then the
// uploads by name), and the bounds of an upload.
type modelsResponse struct {
	Models []modelJSON `json:"models"`
	// Next is the ?after= of the next page, absent on the last.
	Next        string `json:"next,omitempty"`
	MaxBytes    int    `json:"max_bytes"`
	MaxFeatures int    `json:"max_features,omitempty"`
}

// parseErrorJSON is the answer to a file that does not parse: the
// reader's message ("line:column: what was expected") and its parts.
type parseErrorJSON struct {
	Error  string `json:"error"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	File   string `json:"file,omitempty"`
	Quote  string `json:"quote"`
}

// modelRequest is what the model forms of /analyze and /explain share.
type modelRequest struct {
	Model    *string  `json:"model"`
	Select   []string `json:"select"`
	Deselect []string `json:"deselect"`
	Backend  string   `json:"backend"`
}

func (modelRequest) fields() string {
	return "model, select, deselect, backend (and feature for explain)"
}

// modelExplainRequest adds the feature to explain.
type modelExplainRequest struct {
	modelRequest
	Feature *string `json:"feature"`
}

// decisionsJSON names decisions: the features selected and those
// deselected, in the order they were made; never null.
type decisionsJSON struct {
	Select   []string `json:"select"`
	Deselect []string `json:"deselect"`
}

func newDecisionsJSON(m *feature.Model, ds []configurator.Decision) decisionsJSON {
	var out decisionsJSON
	out.Select, out.Deselect = configurator.DecisionNames(m, ds)
	return out
}

// modelAnalyzeResponse is the answer of /analyze on a model: every
// feature exactly once across select, deselect, forced_on, forced_off and
// free (in the model's order); configurations a decimal string, at_least
// when it is a lower bound, null when the backend did not count.
type modelAnalyzeResponse struct {
	Model     string   `json:"model"`
	Backend   string   `json:"backend"`
	Select    []string `json:"select"`
	Deselect  []string `json:"deselect"`
	ForcedOn  []string `json:"forced_on"`
	ForcedOff []string `json:"forced_off"`
	Free      []string `json:"free"`
	// Unsettled lists the features the backend's deadline came before it
	// settled (configurator.Unsettled); absent when it settled every one.
	Unsettled      []string `json:"unsettled,omitempty"`
	Configurations *string  `json:"configurations"`
	AtLeast        bool     `json:"at_least"`
	Work           workJSON `json:"work"`
	ElapsedMS      float64  `json:"elapsed_ms"`
	// CompileMS is how long the compile of the model's space on the
	// backend took, once, whichever request it was made for.
	CompileMS float64 `json:"compile_ms"`
	// Changed is what the last decision did (the last of deselect, or of
	// select when deselect is empty), against the other decisions; null
	// without decisions.
	Changed *changesJSON `json:"changed"`
}

// changesJSON is what a step did to the features the person has not
// decided, by name in the model's order (configurator.Changed); never
// null lists.
type changesJSON struct {
	ForcedOn  []string `json:"forced_on"`
	ForcedOff []string `json:"forced_off"`
	Freed     []string `json:"freed"`
}

// conflictJSON is the 422 of decisions that no configuration keeps:
// conflict is a minimal subset of them (drop any one and a configuration
// keeps the rest), constraints the parts of the model that refute it.
type conflictJSON struct {
	Error       string        `json:"error"`
	Conflict    decisionsJSON `json:"conflict"`
	Constraints []string      `json:"constraints"`
}

// modelReasonJSON is one minimal reason of /explain on a model: the
// decisions, the parts of the model that carry it, and the proof by
// propagation when there is one.
type modelReasonJSON struct {
	decisionsJSON
	Constraints []string `json:"constraints"`
	Proof       []string `json:"proof,omitempty"`
}

// modelExplainResponse is the answer of /explain on a model. Reasons are
// every subset-minimal set of the decisions that forces the feature (the
// first configurator.MaxReasons; More when there are more or the search
// ran out of time); Core says the model alone forces it (its one reason
// has no decision); MakeRoom is a fewest set of decisions to undo to free
// it (null for a core feature); Constraints are the parts of the model
// that carry the reasons, each once.
type modelExplainResponse struct {
	Model    string            `json:"model"`
	Backend  string            `json:"backend"`
	Feature  string            `json:"feature"`
	State    string            `json:"state"`
	Reasons  []modelReasonJSON `json:"reasons"`
	More     bool              `json:"more"`
	Core     bool              `json:"core"`
	MakeRoom *decisionsJSON    `json:"make_room"`
	// MakeRoomAtLeast, when set, says MakeRoom is the smallest set the
	// search found within its budget, not known to be a fewest: a fewest
	// has at least this many decisions.
	MakeRoomAtLeast int      `json:"make_room_at_least,omitempty"`
	Constraints     []string `json:"constraints"`
	ElapsedMS       float64  `json:"elapsed_ms"`
}

// apiAddModel is POST /api/v1/models: the file is the body, its format
// ?format=uvl|dimacs or told from ?name= and the content. 201 for a model
// new to the server, 200 for one it has (the same file: the same ID).
func (s *Server) apiAddModel(c echo.Context) error {
	req := c.Request()
	if err := uploadContentType(req.Header.Get(echo.HeaderContentType)); err != nil {
		return err
	}
	f, err := modelfile.ParseFormat(c.QueryParam("format"))
	if err != nil {
		return problem.New(http.StatusBadRequest, "?format=%s is not a format: use uvl, dimacs, featureide or sxfm, or leave it out to have it told from the file.", words.Quote(c.QueryParam("format")))
	}
	if req.ContentLength > models.MaxSize {
		return tooBig("model's", req.ContentLength)
	}
	// The body is read once there is room for it among the uploads being
	// received (one per client, a bound in all), never before.
	src, done, err := s.models.Receive(req.Context(), http.MaxBytesReader(c.Response(), req.Body, models.MaxSize), req.ContentLength)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe), errors.Is(err, models.ErrTooBig):
		return tooBig("model's", -1)
	case errors.Is(err, models.ErrUploading):
		return &problem.Problem{Status: http.StatusTooManyRequests, RetryAfter: 1, Err: err,
			Message: "Another upload from your address is being received: this server receives one at a time from each address. Wait for its answer, then send the next."}
	case errors.Is(err, configurator.ErrBusy):
		return problem.Retry(2, err, "The server is receiving as many uploads as it holds at once. Please try again in a moment.")
	case err != nil:
		return problem.New(http.StatusBadRequest, "The model's file could not be read.")
	}
	defer done()
	if len(src) == 0 {
		return problem.New(http.StatusBadRequest, "The request body is empty: send the model's file (UVL, DIMACS CNF or FeatureIDE XML) as the body.")
	}
	info, created, err := s.models.Add(req.Context(), c.QueryParam("name"), src, f)
	var fe *feature.Error
	var qe *models.QuotaError
	switch {
	case errors.As(err, &fe):
		return c.JSON(problem.ParseStatus(fe), parseErrorJSON{Error: "The model does not read: " + fe.Error(), Line: fe.Line, Column: fe.Column, File: fe.File, Quote: fe.Quote})
	case errors.Is(err, models.ErrTooBig):
		return tooBig("model's", int64(len(src)))
	case errors.Is(err, models.ErrName):
		return problem.New(http.StatusBadRequest, "?name=%s cannot name a model: %s. Send a name of at most %d bytes of UTF-8 without control characters, or none.",
			words.Quote(c.QueryParam("name")), words.Sentence(strings.TrimPrefix(err.Error(), models.ErrName.Error()+": ")), feature.MaxNameBytes)
	case errors.As(err, &qe):
		return &problem.Problem{Status: http.StatusTooManyRequests, RetryAfter: max(1, int(math.Ceil(qe.Retry.Seconds()))), Err: err,
			Message: words.Sentence(qe.Error()) + fmt.Sprintf(". Try again in %s.", words.Seconds(max(1, int(math.Ceil(qe.Retry.Seconds())))))}
	case errors.Is(err, models.ErrFull):
		return problem.Retry(60, err, "This server keeps as many uploaded models as it has room for, and those it has are in use by others: it removes none of them for yours. Try again later, or use the models it has.")
	case err != nil:
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, newModelJSON(info))
}

// tooBig is the 413 of a file past models.MaxSize (size -1: unknown),
// what file it is in words ("model's").
func tooBig(what string, size int64) *problem.Problem {
	if size < 0 {
		return problem.New(http.StatusRequestEntityTooLarge, "The %s file is larger than the limit of %s.", what, bytesize.Format(models.MaxSize))
	}
	return problem.New(http.StatusRequestEntityTooLarge, "The %s file has %s; the limit is %s.", what, bytesize.Format(size), bytesize.Format(models.MaxSize))
}

// uploadContentType checks an upload's Content-Type: any type but those a
// page of another site may send without asking (a form, text/plain, or
// none), so that such a page cannot upload through a visitor's browser;
// application/octet-stream is the usual one.
func uploadContentType(ct string) error {
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case ct == "":
		return problem.New(http.StatusUnsupportedMediaType, "The upload says no Content-Type; send the model's file with Content-Type: application/octet-stream.")
	case err != nil, mt == "text/plain", mt == "application/x-www-form-urlencoded", mt == "multipart/form-data":
		return problem.New(http.StatusUnsupportedMediaType, "The upload is sent as %s; send the model's file itself as the body, with Content-Type: application/octet-stream.", words.Quote(ct))
	}
	return nil
}

// defaultPage is the models GET /api/v1/models lists without ?limit=.
const defaultPage = 100

// apiModels is GET /api/v1/models: a page of the list, ?limit= models
// (defaultPage, at most models.MaxPage) ?after= the model that ended the
// last page, and next, the ?after= of the next page.
func (s *Server) apiModels(c echo.Context) error {
	limit := defaultPage
	if q := c.QueryParam("limit"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > models.MaxPage {
			return problem.New(http.StatusBadRequest, "?limit=%s is not a number of models from 1 to %d.", words.Quote(q), models.MaxPage)
		}
		limit = n
	}
	list, next, ok := s.models.Page(limit, c.QueryParam("after"))
	if !ok {
		return problem.New(http.StatusBadRequest, "?after=%s is no model of the list (it may have been removed since): list again from the start, without ?after=.", words.Quote(c.QueryParam("after")))
	}
	resp := modelsResponse{Models: make([]modelJSON, len(list)), Next: next, MaxBytes: models.MaxSize, MaxFeatures: s.cfg.Models.MaxFeatures}
	for i, in := range list {
		resp.Models[i] = newModelJSON(in)
		resp.Models[i].Example = &in.Example
	}
	return c.JSON(http.StatusOK, resp)
}

// modelSession is what a model request stands on: the model, the backend
// and its space, the decisions checked, and the session under them, made
// in the backend's turn under its deadline. ctx is the backend's, for the
// work that follows; done releases it and the turn.
type modelSession struct {
	id, backend string
	model       *feature.Model
	decisions   []configurator.Decision
	session     *configurator.FeatureSession
	took        time.Duration // of the session's analysis
	compiled    time.Duration // of the space's compile
	ctx         context.Context
	done        func()
}

// conflictError is the error of decisions that no configuration keeps,
// answered with its body (modelError).
type conflictError struct {
	body conflictJSON
	err  error
}

func (e *conflictError) Error() string { return e.body.Error }
func (e *conflictError) Unwrap() error { return e.err }

// modelError answers the errors of openModel: a conflict with its body,
// any other as every error is.
func modelError(c echo.Context, err error) error {
	var ce *conflictError
	if errors.As(err, &ce) {
		return c.JSON(http.StatusUnprocessableEntity, ce.body)
	}
	return err
}

// openModel checks a model request, finds (or compiles) its space and
// classifies the features under its decisions, in the backend's turn and
// under its deadline. Decisions that no configuration keeps give a
// *conflictError. The caller calls done when it has finished its work.
func (s *Server) openModel(c echo.Context, req modelRequest) (*modelSession, error) {
	mo, sp, err := s.findModel(c, req)
	if err != nil {
		return nil, err
	}
	return s.openSession(c.Request().Context(), mo, sp)
}

// findModel is openModel before the session: the request checked, the
// model and its space found (or compiled), so that a request that needs
// a facet of the space can ask for it before any work on the decisions.
func (s *Server) findModel(c echo.Context, req modelRequest) (*modelSession, configurator.Space, error) {
	if req.Model == nil || *req.Model == "" {
		return nil, nil, problem.New(http.StatusBadRequest, "Say which model: \"model\" is the ID that POST /api/v1/models gave (GET /api/v1/models lists them).")
	}
	id := *req.Model
	backend, err := s.modelBackend(req.Backend)
	if err != nil {
		return nil, nil, err
	}
	ctx := c.Request().Context()
	m, _, err := s.models.Model(ctx, id)
	if err != nil {
		return nil, nil, s.modelProblem(id, backend, err)
	}
	ds, err := configurator.ParseDecisions(m, req.Select, req.Deselect)
	if err != nil {
		return nil, nil, problem.New(http.StatusBadRequest, "%s", words.Sentence(err.Error()))
	}
	sp, err := s.featureSpace(ctx, id, backend)
	if err != nil {
		if sc, ok := s.stillCompiling(s.modelKey(id, backend), err); ok && ctx.Err() != nil {
			return nil, nil, sc.problem()
		}
		return nil, nil, s.modelProblem(id, backend, err)
	}
	return &modelSession{id: id, backend: backend, model: m, decisions: ds, compiled: sp.Took}, sp.Space, nil
}

// openSession opens mo's session on sp, the space of its model, in the
// backend's turn and under its deadline: the step the model requests and
// the board's shorthand share. Decisions that no configuration keeps give
// a *conflictError. The caller calls mo.done when it has finished.
func (s *Server) openSession(parent context.Context, mo *modelSession, sp configurator.Space) (*modelSession, error) {
	ctx, cancel := context.WithTimeout(parent, s.deadline(mo.backend))
	release, err := configurator.Admit(ctx, sp)
	if err != nil {
		cancel()
		return nil, modelWorkProblem(ctx, mo.backend, err)
	}
	mo.ctx, mo.done = ctx, func() { release(); cancel() }
	start := time.Now()
	mo.session, err = configurator.NewFeatureSession(ctx, sp, mo.decisions)
	mo.took = time.Since(start)
	var work *configurator.Work
	if mo.session != nil {
		work = &mo.session.Domains().Work
	}
	s.metrics.opened(mo.backend, mo.took, work)
	var conflict *configurator.Conflict
	switch {
	case errors.As(err, &conflict):
		mo.done()
		return nil, &conflictError{body: newConflictJSON(mo.model, conflict), err: err}
	case err != nil:
		mo.done()
		if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.missed.note(mo.id, mo.backend, time.Now())
		}
		return nil, modelWorkProblem(ctx, mo.backend, err)
	}
	return mo, nil
}

// modelWorkProblem words the error of a backend's work on a model: past
// its deadline, a 503 that says so in a model's terms; problem.Describe
// words the others.
func modelWorkProblem(ctx context.Context, backend string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return problem.Retry(5, err, "The %s backend took longer than the time allowed for one request on this model; try again in a moment, or another backend.", backend)
	}
	return err
}

func newConflictJSON(m *feature.Model, e *configurator.Conflict) conflictJSON {
	out := conflictJSON{Error: words.Sentence(e.Error()), Conflict: newDecisionsJSON(m, e.Decisions), Constraints: describeAll(m, e.Constraints)}
	if len(e.Decisions) == 0 {
		out.Error = fmt.Sprintf("%s has no configuration at all, whatever the decisions.", words.Quote(configurator.ModelName(m)))
	}
	return out
}

// describeAll says parts of a model in its words; never null.
func describeAll(m *feature.Model, parts []feature.Origin) []string {
	out := make([]string, 0, len(parts))
	for _, o := range parts {
		out = append(out, m.Describe(o))
	}
	return out
}

// modelBackend returns the backend a model request names, or the first
// one registered that configures feature models.
func (s *Server) modelBackend(name string) (string, error) {
	if name == "" {
		for _, n := range s.lineup.Names() {
			if _, ok := s.engines[n].Backend.(configurator.ModelCompiler); ok {
				return n, nil
			}
		}
		return "", problem.New(http.StatusBadRequest, "No backend of this server configures feature models.")
	}
	if _, ok := s.engines[name]; !ok {
		return "", problem.New(http.StatusBadRequest, "%s is not a backend: use %s.", words.Quote(name), s.lineup.Choices(false, true))
	}
	return name, nil
}

// modelProblem words the store's errors for a model request.
func (s *Server) modelProblem(id, backend string, err error) error {
	switch {
	case errors.As(err, new(*models.Evicted)):
		return &problem.Problem{Status: http.StatusGone, Err: err,
			Message: words.Sentence(err.Error()) + ". Upload its file again with POST /api/v1/models: the same file gets the same ID."}
	case errors.As(err, new(*models.NoBoard)):
		return &problem.Problem{Status: http.StatusNotFound, Message: words.Sentence(err.Error()), Err: err}
	case errors.Is(err, models.ErrNotFound):
		return &problem.Problem{Status: http.StatusNotFound, Err: err,
			Message: fmt.Sprintf("There is no model %s on this server (or no longer): upload its file again with POST /api/v1/models; GET /api/v1/models lists the models it has.", words.Quote(id))}
	case errors.Is(err, configurator.ErrTooLarge):
		msg := fmt.Sprintf("This model is beyond the %s backend's limits (%s)", backend, err)
		for _, n := range s.lineup.Names() {
			if _, ok := s.engines[n].Backend.(configurator.ModelCompiler); ok && n != backend {
				msg += fmt.Sprintf(". The %s backend answers it: send \"backend\": %q", n, n)
				break
			}
		}
		return &problem.Problem{Status: http.StatusRequestEntityTooLarge, Err: err, Message: msg + "."}
	case errors.Is(err, context.DeadlineExceeded):
		return problem.Retry(30, err, "Compiling this model with %s took longer than allowed; try again later, or another backend.", backend)
	}
	return err
}

// apiAnalyzeModel is POST /api/v1/analyze with a "model".
func (s *Server) apiAnalyzeModel(c echo.Context, body []byte) error {
	var req modelRequest
	if err := decodeJSON(body, &req); err != nil {
		return err
	}
	mo, err := s.openModel(c, req)
	if err != nil {
		return modelError(c, err)
	}
	defer mo.done()
	m, d := mo.model, mo.session.Domains()
	var changed *changesJSON
	if n := len(mo.decisions); n > 0 {
		// The answer before the last decision has a deadline of its own,
		// as on the page: the step's may be spent on a partial answer.
		bctx, cancel := context.WithTimeout(c.Request().Context(), s.deadline(mo.backend))
		defer cancel()
		before, err := mo.session.Space().Domains(bctx, mo.decisions[:n-1])
		if err != nil {
			return modelWorkProblem(bctx, mo.backend, err)
		}
		ch := configurator.Changed(before, d)
		changed = &changesJSON{ForcedOn: featureNames(m, ch.ForcedOn), ForcedOff: featureNames(m, ch.ForcedOff), Freed: featureNames(m, ch.Freed)}
	}
	dec := newDecisionsJSON(m, mo.decisions)
	resp := modelAnalyzeResponse{Model: mo.id, Backend: mo.backend, Select: dec.Select, Deselect: dec.Deselect,
		ForcedOn: featureNames(m, d.In(configurator.ForcedOn)), ForcedOff: featureNames(m, d.In(configurator.ForcedOff)), Free: featureNames(m, d.In(configurator.Open)),
		Unsettled: featureNames(m, d.In(configurator.Unsettled)), AtLeast: d.AtLeast, Work: newWorkJSON(mo.session.Space(), d.Work), ElapsedMS: ms(mo.took), CompileMS: ms(mo.compiled), Changed: changed}
	if d.Configurations != nil {
		n := d.Configurations.String()
		resp.Configurations = &n
	}
	return c.JSON(http.StatusOK, resp)
}

// featureNames names features; never null.
func featureNames(m *feature.Model, fs []int) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, m.Features[f].Name)
	}
	return out
}

// apiExplainModel is POST /api/v1/explain with a "model".
func (s *Server) apiExplainModel(c echo.Context, body []byte) error {
	var req modelExplainRequest
	if err := decodeJSON(body, &req); err != nil {
		return err
	}
	if req.Feature == nil || *req.Feature == "" {
		return problem.New(http.StatusBadRequest, "Say which feature to explain: \"feature\" is its name.")
	}
	mo, err := s.openModel(c, req.modelRequest)
	if err != nil {
		return modelError(c, err)
	}
	defer mo.done()
	ctx := mo.ctx
	m := mo.model
	f, ok := m.ID(*req.Feature)
	if !ok {
		return problem.New(http.StatusBadRequest, "%s is no feature of the model.", words.Quote(*req.Feature))
	}
	start := time.Now()
	ex, err := mo.session.Explain(ctx, f)
	if errors.Is(err, configurator.ErrNotForced) {
		return problem.New(http.StatusUnprocessableEntity, "%s is %s; only a forced feature has a reason to explain.",
			words.Quote(*req.Feature), stateWords(mo.session.Domains().States[f]))
	}
	if err != nil {
		return modelWorkProblem(ctx, mo.backend, err)
	}
	resp := modelExplainResponse{Model: mo.id, Backend: mo.backend, Feature: m.Features[f].Name, State: ex.State.String(),
		Reasons: []modelReasonJSON{}, More: ex.More, Core: ex.Core, Constraints: []string{}, ElapsedMS: ms(time.Since(start))}
	for _, r := range ex.Reasons {
		rj := modelReasonJSON{decisionsJSON: newDecisionsJSON(m, r.Decisions), Constraints: describeAll(m, r.Constraints)}
		for _, p := range r.Proof {
			rj.Proof = append(rj.Proof, p.Text(m))
		}
		rj.Proof = append(rj.Proof, r.Argument...)
		resp.Reasons = append(resp.Reasons, rj)
	}
	resp.Constraints = append(resp.Constraints, describeAll(m, ex.Constraints())...)
	if !ex.Core {
		room := newDecisionsJSON(m, ex.Room)
		resp.MakeRoom, resp.MakeRoomAtLeast = &room, ex.RoomAtLeast
	}
	return c.JSON(http.StatusOK, resp)
}

// stateWords says a feature's state that needs no explanation.
func stateWords(st configurator.FeatureState) string {
	switch st {
	case configurator.Selected:
		return "selected by you"
	case configurator.Deselected:
		return "deselected by you"
	case configurator.Unsettled:
		return "not settled yet (the backend's deadline came first; ask again)"
	}
	return "free (some configuration selects it and some does not)"
}
