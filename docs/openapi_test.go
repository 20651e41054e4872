package docs_test

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exchange is one request to the API and the status it must get. The
// answer, whatever its status, must be one the description describes, and
// the request must be one the description accepts unless refused says the
// description refuses it too (a misspelt field, a wrong type, a body that
// is not JSON): then the server must refuse it as well.
type exchange struct {
	name        string
	method      string // POST when empty
	path        string
	contentType string // application/json when empty
	body        string
	status      int
	refused     bool
}

// jsonType is the media type of every request body.
const jsonType = "application/json"

// api lists the exchanges with a server of the usual setup: every
// endpoint's answers, and the errors of each that do not need a server
// set up to fail.
var api = []exchange{
	{name: "analyze, BDD", path: "/api/v1/analyze", body: `{"n":8,"queens":[[0,0],[1,6]]}`, status: 200},
	{name: "analyze, SAT", path: "/api/v1/analyze", body: `{"n":8,"queens":[[0,0]],"backend":"sat"}`, status: 200},
	{name: "analyze, SAT past its count cap", path: "/api/v1/analyze", body: `{"n":10,"backend":"sat"}`, status: 200},
	{name: "analyze, SAT on a board it does not count", path: "/api/v1/analyze", body: `{"n":12,"backend":"sat"}`, status: 200},
	{name: "analyze, plain SAT", path: "/api/v1/analyze", body: `{"n":6,"backend":"sat-plain"}`, status: 200},
	{name: "analyze, file by file", path: "/api/v1/analyze", body: `{"n":6,"queens":[[0,1]],"order":"col"}`, status: 200},
	{name: "analyze, a field misspelt", path: "/api/v1/analyze", body: `{"N":8}`, status: 400, refused: true},
	{name: "analyze, a field twice", path: "/api/v1/analyze", body: `{"n":8,"n":9}`, status: 400},
	{name: "analyze, n a string", path: "/api/v1/analyze", body: `{"n":"8"}`, status: 400, refused: true},
	{name: "analyze, n missing", path: "/api/v1/analyze", body: `{"queens":[]}`, status: 400, refused: true},
	{name: "analyze, n out of range", path: "/api/v1/analyze", body: `{"n":0}`, status: 400, refused: true},
	{name: "analyze, a queen off the board", path: "/api/v1/analyze", body: `{"n":8,"queens":[[9,0]]}`, status: 400},
	{name: "analyze, a queen not a pair", path: "/api/v1/analyze", body: `{"n":8,"queens":[[1]]}`, status: 400, refused: true},
	{name: "analyze, a queen twice", path: "/api/v1/analyze", body: `{"n":8,"queens":[[0,0],[0,0]]}`, status: 400},
	{name: "analyze, an unknown backend", path: "/api/v1/analyze", body: `{"n":8,"backend":"z3"}`, status: 400, refused: true},
	{name: "analyze, an unknown order", path: "/api/v1/analyze", body: `{"n":8,"order":"spiral"}`, status: 400, refused: true},
	{name: "analyze, an empty body", path: "/api/v1/analyze", body: ``, status: 400, refused: true},
	{name: "analyze, two JSON values", path: "/api/v1/analyze", body: `{"n":8}{"n":8}`, status: 400, refused: true},
	{name: "analyze, a board beyond the BDD", path: "/api/v1/analyze", body: `{"n":11}`, status: 413},
	{name: "analyze, a body over the limit", path: "/api/v1/analyze", body: oversized(), status: 413},
	{name: "analyze, sent as text", path: "/api/v1/analyze", contentType: "text/plain", body: `{"n":8}`, status: 415, refused: true},
	{name: "analyze, two queens that attack", path: "/api/v1/analyze", body: `{"n":8,"queens":[[0,0],[1,1]]}`, status: 422},
	{name: "analyze, GET", method: "GET", path: "/api/v1/analyze", status: 405},

	{name: "explain, an attack and another reason", path: "/api/v1/explain", body: `{"n":8,"queens":[[0,0],[4,1]],"cell":[6,3]}`, status: 200},
	{name: "explain, a proof by propagation", path: "/api/v1/explain", body: `{"n":6,"queens":[[0,1]],"cell":[5,3]}`, status: 200},
	{name: "explain, a proof by cases", path: "/api/v1/explain", body: `{"n":8,"queens":[[0,0],[4,1]],"cell":[6,3],"backend":"sat"}`, status: 200},
	{name: "explain, the solutions listed", path: "/api/v1/explain", body: `{"n":8,"queens":[[0,0]],"cell":[5,7]}`, status: 200},
	{name: "explain, a forced square on SAT", path: "/api/v1/explain", body: `{"n":8,"queens":[[0,0],[1,6]],"cell":[7,2],"backend":"sat"}`, status: 200},
	{name: "explain, no cell", path: "/api/v1/explain", body: `{"n":8,"queens":[[0,0]]}`, status: 400, refused: true},
	{name: "explain, a cell not a pair", path: "/api/v1/explain", body: `{"n":8,"cell":[1,2,3]}`, status: 400, refused: true},
	{name: "explain, a board beyond the BDD", path: "/api/v1/explain", body: `{"n":11,"cell":[0,0]}`, status: 413},
	{name: "explain, sent as a form", path: "/api/v1/explain", contentType: "application/x-www-form-urlencoded", body: `n=8`, status: 415, refused: true},
	{name: "explain, a free square", path: "/api/v1/explain", body: `{"n":8,"queens":[[0,0]],"cell":[2,3]}`, status: 422},
	{name: "explain, a queen", path: "/api/v1/explain", body: `{"n":8,"queens":[[0,0]],"cell":[0,0]}`, status: 422},
	{name: "explain, GET", method: "GET", path: "/api/v1/explain", status: 405},

	{name: "complete, BDD", path: "/api/v1/complete", body: `{"n":8,"queens":[[0,0]]}`, status: 200},
	{name: "complete, SAT", path: "/api/v1/complete", body: `{"n":16,"queens":[[0,0]],"backend":"sat"}`, status: 200},
	{name: "complete, an unknown field", path: "/api/v1/complete", body: `{"n":8,"cell":[0,0]}`, status: 400, refused: true},
	{name: "complete, a board beyond the SAT backend", path: "/api/v1/complete", body: `{"n":17,"backend":"sat"}`, status: 413},
	{name: "complete, sent as text", path: "/api/v1/complete", contentType: "text/plain", body: `{"n":8}`, status: 415, refused: true},
	{name: "complete, two queens that attack", path: "/api/v1/complete", body: `{"n":8,"queens":[[0,0],[7,7]]}`, status: 422},
	{name: "complete, GET", method: "GET", path: "/api/v1/complete", status: 405},

	{name: "diagram, ranks", path: "/api/v1/diagram", body: `{"n":4,"queens":[[0,1]]}`, status: 200},
	{name: "diagram, the BDD itself", path: "/api/v1/diagram", body: `{"n":4,"queens":[[0,1]],"view":"bdd"}`, status: 200},
	{name: "diagram, past its node cap", path: "/api/v1/diagram", body: `{"n":10,"view":"bdd"}`, status: 200},
	{name: "diagram, an unknown view", path: "/api/v1/diagram", body: `{"n":8,"view":"tree"}`, status: 400, refused: true},
	{name: "diagram, a backend without one", path: "/api/v1/diagram", body: `{"n":8,"backend":"sat"}`, status: 400},
	{name: "diagram, a board beyond the BDD", path: "/api/v1/diagram", body: `{"n":11}`, status: 413},
	{name: "diagram, sent as text", path: "/api/v1/diagram", contentType: "text/plain", body: `{"n":8}`, status: 415, refused: true},
	{name: "diagram, two queens that attack", path: "/api/v1/diagram", body: `{"n":8,"queens":[[0,0],[1,1]]}`, status: 422},
	{name: "diagram, GET", method: "GET", path: "/api/v1/diagram", status: 405},
	{name: "diagram of a model", path: "/api/v1/diagram", body: `{"model":"` + exampleID("car") + `","select":["Electric"]}`, status: 200},
	{name: "diagram of a board as a model", path: "/api/v1/diagram", body: `{"model":"queens-6","select":["b1"],"deselect":["c3"]}`, status: 200},
	{name: "diagram of a model, on a backend without one", path: "/api/v1/diagram", body: `{"model":"` + exampleID("car") + `","backend":"sat"}`, status: 400},
	{name: "diagram of a model, a view", path: "/api/v1/diagram", body: `{"model":"` + exampleID("car") + `","view":"bdd"}`, status: 400, refused: true},
	{name: "diagram of an unknown model", path: "/api/v1/diagram", body: `{"model":"000000000000000000000000"}`, status: 404},
	{name: "diagram of a model, decisions no configuration keeps", path: "/api/v1/diagram", body: `{"model":"` + exampleID("car") + `","select":["Electric","Tow bar"]}`, status: 422},

	{name: "orders", path: "/api/v1/orders", body: `{"n":6}`, status: 200},
	{name: "orders, n missing", path: "/api/v1/orders", body: `{"backend":"bdd"}`, status: 400, refused: true},
	{name: "orders, queens", path: "/api/v1/orders", body: `{"n":6,"queens":[]}`, status: 400, refused: true},
	{name: "orders, a board beyond the BDD", path: "/api/v1/orders", body: `{"n":11}`, status: 413},
	{name: "orders, sent as text", path: "/api/v1/orders", contentType: "text/plain", body: `{"n":8}`, status: 415, refused: true},
	{name: "orders, a backend without orders", path: "/api/v1/orders", body: `{"n":8,"backend":"sat"}`, status: 422},
	{name: "orders, GET", method: "GET", path: "/api/v1/orders", status: 405},

	{name: "upload, a CNF file", path: "/api/v1/models?name=pair.cnf", contentType: octets, body: "c 1 A\nc 2 B\np cnf 2 1\n1 2 0\n", status: 201},
	{name: "upload, the same file again", path: "/api/v1/models?format=dimacs", contentType: octets, body: "c 1 A\nc 2 B\np cnf 2 1\n1 2 0\n", status: 200},
	{name: "upload, a truncated file", path: "/api/v1/models", contentType: octets, body: "p cnf 3 2\n1 2 0\n-1", status: 400},
	{name: "upload, a typed feature", path: "/api/v1/models", contentType: octets, body: "features\n\tRoot\n\t\toptional\n\t\t\tInteger Speed\n", status: 422},
	{name: "upload, a file over the limit", path: "/api/v1/models", contentType: octets, body: strings.Repeat("c\n", 8<<20+1), status: 413},
	{name: "upload, an unknown format", path: "/api/v1/models?format=xml", contentType: octets, body: "features\n\tA\n", status: 400, refused: true},
	{name: "upload, sent as a form", path: "/api/v1/models", contentType: "application/x-www-form-urlencoded", body: "features=A", status: 415, refused: true},
	{name: "models", method: "GET", path: "/api/v1/models", status: 200},
	{name: "models, DELETE", method: "DELETE", path: "/api/v1/models", status: 405},
	{name: "models, a page of two", method: "GET", path: "/api/v1/models?limit=2", status: 200},
	{name: "models, a page past the bound", method: "GET", path: "/api/v1/models?limit=501", status: 400},

	{name: "analyze a model", path: "/api/v1/analyze", body: `{"model":"` + exampleID("car") + `","select":["Electric"],"deselect":["Sunroof"]}`, status: 200},
	{name: "analyze a model on SAT", path: "/api/v1/analyze", body: `{"model":"` + exampleID("computer") + `","backend":"sat"}`, status: 200},
	{name: "analyze an unknown model", path: "/api/v1/analyze", body: `{"model":"000000000000000000000000"}`, status: 404},
	{name: "analyze a model, an unknown feature", path: "/api/v1/analyze", body: `{"model":"` + exampleID("car") + `","select":["Wings"]}`, status: 400},
	{name: "analyze a model, a board's field", path: "/api/v1/analyze", body: `{"model":"` + exampleID("car") + `","n":8}`, status: 400, refused: true},
	{name: "analyze a model, decisions no configuration keeps", path: "/api/v1/analyze", body: `{"model":"` + exampleID("car") + `","select":["Electric","Tow bar"]}`, status: 422},
	{name: "explain a feature", path: "/api/v1/explain", body: `{"model":"` + exampleID("car") + `","select":["Electric"],"feature":"Automatic"}`, status: 200},
	{name: "explain a core feature", path: "/api/v1/explain", body: `{"model":"` + exampleID("car") + `","feature":"Body"}`, status: 200},
	{name: "explain a model, no feature", path: "/api/v1/explain", body: `{"model":"` + exampleID("car") + `"}`, status: 400, refused: true},
	{name: "explain a free feature", path: "/api/v1/explain", body: `{"model":"` + exampleID("car") + `","feature":"Sunroof"}`, status: 422},
	{name: "explain a feature of an unknown model", path: "/api/v1/explain", body: `{"model":"000000000000000000000000","feature":"A"}`, status: 404},

	{name: "complete a model uniformly", path: "/api/v1/complete", body: `{"model":"` + exampleID("car") + `","select":["Electric"],"how":"uniform"}`, status: 200},
	{name: "complete a model, the fewest on SAT", path: "/api/v1/complete", body: `{"model":"` + exampleID("car") + `","backend":"sat","how":"fewest"}`, status: 200},
	{name: "complete a board as a model, the most", path: "/api/v1/complete", body: `{"model":"queens-6","select":["b1"],"how":"most"}`, status: 200},
	{name: "complete a model, an unknown way", path: "/api/v1/complete", body: `{"model":"` + exampleID("car") + `","how":"best"}`, status: 400, refused: true},
	{name: "complete a model uniformly on SAT", path: "/api/v1/complete", body: `{"model":"` + exampleID("car") + `","backend":"sat","how":"uniform"}`, status: 422},
	{name: "complete an unknown model", path: "/api/v1/complete", body: `{"model":"000000000000000000000000"}`, status: 404},
	{name: "complete a model, decisions no configuration keeps", path: "/api/v1/complete", body: `{"model":"` + exampleID("car") + `","select":["Electric","Tow bar"]}`, status: 422},

	{name: "configuration as FeatureIDE XML", path: "/api/v1/configuration?format=featureide", body: `{"model":"` + exampleID("car") + `","select":["Electric"]}`, status: 200},
	{name: "configuration as Kconfig", path: "/api/v1/configuration?format=kconfig", body: `{"model":"queens-6","select":["b1"]}`, status: 200},
	{name: "configuration as CSV", path: "/api/v1/configuration?format=csv", body: `{"model":"` + exampleID("car") + `","deselect":["Sunroof"],"backend":"sat"}`, status: 200},
	{name: "configuration as JSON", path: "/api/v1/configuration?format=json", body: `{"model":"` + exampleID("car") + `","select":["Electric"]}`, status: 200},
	{name: "configuration, Kconfig of names that are not symbols", path: "/api/v1/configuration?format=kconfig", body: `{"model":"` + exampleID("car") + `"}`, status: 422},
	{name: "configuration, an unknown format", path: "/api/v1/configuration?format=yaml", body: `{"model":"` + exampleID("car") + `"}`, status: 400, refused: true},
	{name: "configuration, an unknown feature", path: "/api/v1/configuration?format=json", body: `{"model":"` + exampleID("car") + `","select":["Wings"]}`, status: 400},
	{name: "configuration of an unknown model", path: "/api/v1/configuration?format=json", body: `{"model":"000000000000000000000000"}`, status: 404},
	{name: "configuration, a body over the limit", path: "/api/v1/configuration?format=json", body: oversized(), status: 413, refused: true},
	{name: "configuration, sent as text", path: "/api/v1/configuration?format=json", contentType: "text/plain", body: `{"model":"queens-4"}`, status: 415, refused: true},
	{name: "configuration, GET", method: "GET", path: "/api/v1/configuration", status: 405},
	{name: "read a configuration", path: "/api/v1/configuration/read?model=" + exampleID("car"), contentType: octets, body: `{"select":["Electric"],"deselect":["Sunroof"]}`, status: 200},
	{name: "read a Kconfig file", path: "/api/v1/configuration/read?model=queens-6&format=kconfig", contentType: octets, body: "CONFIG_b1=y\n# CONFIG_a3 is not set\n", status: 200},
	{name: "read a configuration that does not read", path: "/api/v1/configuration/read?model=" + exampleID("car") + "&format=featureide", contentType: octets, body: "<configuration>\n<feature/>", status: 400},
	{name: "read a configuration of unknown features", path: "/api/v1/configuration/read?model=" + exampleID("car"), contentType: octets, body: `{"select":["Wings"]}`, status: 400},
	{name: "read a configuration of an unknown model", path: "/api/v1/configuration/read?model=000000000000000000000000", contentType: octets, body: `{}`, status: 404},
	{name: "read a configuration over the limit", path: "/api/v1/configuration/read?model=" + exampleID("car"), contentType: octets, body: strings.Repeat("#\n", 8<<20+1), status: 413},
	{name: "read a configuration sent as a form", path: "/api/v1/configuration/read?model=" + exampleID("car"), contentType: "application/x-www-form-urlencoded", body: "a=b", status: 415, refused: true},
	{name: "read a configuration no configuration keeps", path: "/api/v1/configuration/read?model=" + exampleID("car"), contentType: octets, body: `{"select":["Electric","Tow bar"]}`, status: 422},
	{name: "read a configuration, GET", method: "GET", path: "/api/v1/configuration/read", status: 405},

	{name: "facts, BDD", path: "/api/v1/facts", body: `{"model":"` + exampleID("car") + `"}`, status: 200},
	{name: "facts, SAT", path: "/api/v1/facts", body: `{"model":"queens-6","backend":"sat"}`, status: 200},
	{name: "facts, a decision", path: "/api/v1/facts", body: `{"model":"queens-6","select":["a1"]}`, status: 400, refused: true},
	{name: "facts of an unknown model", path: "/api/v1/facts", body: `{"model":"000000000000000000000000"}`, status: 404},
	{name: "facts of a model without configurations", path: "/api/v1/facts", body: `{"model":"queens-3"}`, status: 422},
	{name: "facts, a body over the limit", path: "/api/v1/facts", body: oversized(), status: 413, refused: true},
	{name: "facts, sent as text", path: "/api/v1/facts", contentType: "text/plain", body: `{"model":"queens-4"}`, status: 415, refused: true},
	{name: "facts, GET", method: "GET", path: "/api/v1/facts", status: 405},

	{name: "sample, pairwise", path: "/api/v1/sample", body: `{"model":"` + exampleID("car") + `","select":["Electric"],"t":2}`, status: 200},
	{name: "sample, pairwise on SAT", path: "/api/v1/sample", body: `{"model":"queens-5","backend":"sat","t":2}`, status: 200},
	{name: "sample, uniform", path: "/api/v1/sample", body: `{"model":"` + exampleID("car") + `","uniform":3}`, status: 200},
	{name: "sample, uniform on SAT", path: "/api/v1/sample", body: `{"model":"` + exampleID("car") + `","uniform":3,"backend":"sat"}`, status: 422},
	{name: "sample, t = 3", path: "/api/v1/sample", body: `{"model":"` + exampleID("car") + `","t":3}`, status: 400, refused: true},
	{name: "sample, no kind", path: "/api/v1/sample", body: `{"model":"` + exampleID("car") + `"}`, status: 400},
	{name: "sample of an unknown model", path: "/api/v1/sample", body: `{"model":"000000000000000000000000","t":2}`, status: 404},
	{name: "sample, a body over the limit", path: "/api/v1/sample", body: oversized(), status: 413, refused: true},
	{name: "sample, sent as text", path: "/api/v1/sample", contentType: "text/plain", body: `{"model":"queens-4","t":2}`, status: 415, refused: true},
	{name: "sample, GET", method: "GET", path: "/api/v1/sample", status: 405},

	{name: "an endpoint that does not exist", path: "/api/v1/nothing", status: 404},
}

// octets is the media type of an upload.
const octets = "application/octet-stream"

// oversized is a body over the server's 64 KiB limit.
func oversized() string {
	return `{"n":8,"queens":[` + strings.Repeat(`[0,0],`, 12000) + `[0,0]]}`
}

// everyEndpoint is the exchange of a valid request on every endpoint,
// each answered with want.
func everyEndpoint(what string, want int) []exchange {
	bodies := []struct{ path, body string }{
		{"/api/v1/analyze", `{"n":8,"queens":[[0,0]]}`},
		{"/api/v1/explain", `{"n":8,"queens":[[0,0]],"cell":[0,1]}`},
		{"/api/v1/complete", `{"n":8,"queens":[[0,0]]}`},
		{"/api/v1/diagram", `{"n":8,"queens":[[0,0]]}`},
		{"/api/v1/orders", `{"n":8}`},
	}
	var out []exchange
	for _, b := range bodies {
		out = append(out, exchange{name: strings.TrimPrefix(b.path, "/api/v1/") + ", " + what, path: b.path, body: b.body, status: want})
	}
	return out
}

// firstCNF is the model that the store of one model removes.
const firstCNF = "p cnf 2 1\n1 2 0\n"

// setups are the servers set up to fail, and the exchanges with each.
var setups = []struct {
	name      string
	setup     serverSetup
	exchanges []exchange
}{
	{"usual", serverSetup{}, api},
	{"a deadline of a nanosecond", serverSetup{deadline: time.Nanosecond},
		slices.Concat(everyEndpoint("past its deadline", 503)[:4],
			[]exchange{
				{name: "analyze a model past its deadline", path: "/api/v1/analyze", body: `{"model":"` + exampleID("car") + `"}`, status: 503},
				{name: "explain a feature past its deadline", path: "/api/v1/explain", body: `{"model":"` + exampleID("car") + `","feature":"Body"}`, status: 503},
				{name: "configuration past its deadline", path: "/api/v1/configuration?format=json", body: `{"model":"` + exampleID("car") + `"}`, status: 503},
				{name: "facts past their deadline", path: "/api/v1/facts", body: `{"model":"` + exampleID("car") + `"}`, status: 503},
				{name: "sample past its deadline", path: "/api/v1/sample", body: `{"model":"` + exampleID("car") + `","t":2}`, status: 503},
				{name: "read a configuration past its deadline", path: "/api/v1/configuration/read?model=" + exampleID("car"), contentType: octets, body: `{}`, status: 503},
			},
			// The orders compile within the request's deadline, which no
			// backend's deadline shortens.
			[]exchange{{name: "orders, past their deadline", path: "/api/v1/orders", body: `{"n":8}`, status: 200}})},
	{"a loopback client limited to one request", serverSetup{rate: 1e-6},
		slices.Concat([]exchange{{name: "analyze, the one request", path: "/api/v1/analyze", body: `{"n":4}`, status: 200}},
			everyEndpoint("past the client's rate", 429),
			[]exchange{
				{name: "models past the client's rate", method: "GET", path: "/api/v1/models", status: 429},
				{name: "upload past the client's rate", path: "/api/v1/models", contentType: octets, body: "features\n\tA\n", status: 429},
				{name: "configuration past the client's rate", path: "/api/v1/configuration?format=json", body: `{"model":"queens-4"}`, status: 429},
				{name: "facts past the client's rate", path: "/api/v1/facts", body: `{"model":"queens-4"}`, status: 429},
				{name: "sample past the client's rate", path: "/api/v1/sample", body: `{"model":"queens-4","t":2}`, status: 429},
				{name: "read a configuration past the client's rate", path: "/api/v1/configuration/read?model=queens-4", contentType: octets, body: "{}", status: 429},
			})},
	{"a store that holds one uploaded model", serverSetup{oneModel: true},
		[]exchange{
			{name: "upload, the first", path: "/api/v1/models?name=a.cnf", contentType: octets, body: firstCNF, status: 201},
			{name: "upload, the second", path: "/api/v1/models?name=b.cnf", contentType: octets, body: "p cnf 2 1\n1 -2 0\n", status: 201},
			{name: "analyze the removed model", path: "/api/v1/analyze", body: `{"model":"` + cnfID(firstCNF) + `"}`, status: 410},
			{name: "explain a feature of the removed model", path: "/api/v1/explain", body: `{"model":"` + cnfID(firstCNF) + `","feature":"1"}`, status: 410},
			{name: "diagram of the removed model", path: "/api/v1/diagram", body: `{"model":"` + cnfID(firstCNF) + `"}`, status: 410},
		}},
	{"SAT backends alone", serverSetup{satOnly: true},
		[]exchange{{name: "orders, no backend with orders", path: "/api/v1/orders", body: `{"n":8}`, status: 404}}},
}

// notExercised are the statuses the description gives an operation that
// no exchange here meets, and why. Every other described status must be
// met, so that a description that grows a route or a status grows a test.
var notExercised = map[string]string{
	"post /api/v1/models 503": "an upload waits for its turn to be read only while the server reads " +
		"as many others as it has slots for, past the request's deadline",
	"post /api/v1/orders 503": "the orders answer each order's failure inside a 200; " +
		"a 503 comes only from the per-client table when it is full (65,536 addresses)",
}

// TestOpenAPI sends every exchange to a real server and checks the request
// and the answer against docs/openapi.yaml: the status, the required
// headers, and the body, whose every object is closed (additionalProperties
// false), so that a field renamed on either side fails.
func TestOpenAPI(t *testing.T) {
	d, err := loadDescription("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	met := map[string]bool{}
	for _, s := range setups {
		base := startServer(t, s.setup)
		for _, x := range s.exchanges {
			method := x.method
			if method == "" {
				method = http.MethodPost
			}
			ct := x.contentType
			if ct == "" && x.body != "" || ct == "" && method == http.MethodPost {
				ct = jsonType
			}
			name := s.name + ": " + x.name
			if method == http.MethodPost {
				err := d.checkRequest(method, x.path, ct, []byte(x.body))
				switch {
				case err != nil && !x.refused:
					t.Errorf("%s: the description refuses the request: %v", name, err)
				case err == nil && x.refused:
					t.Errorf("%s: the description accepts the request %s, which the server must refuse", name, x.body)
				}
			}
			res, body := send(t, method, base+x.path, ct, x.body)
			if res.StatusCode != x.status {
				t.Errorf("%s: status %d, want %d: %.300s", name, res.StatusCode, x.status, body)
			}
			if err := d.checkResponse(method, x.path, res, body); err != nil {
				t.Errorf("%s: the answer %d does not fit the description: %v\nbody: %.500s", name, res.StatusCode, err, body)
			}
			op, err := d.operation(method, x.path)
			if err == nil {
				met[op+" "+strconv.Itoa(res.StatusCode)] = true
			}
		}
	}
	for _, want := range describedStatuses(t, d) {
		key := want.op + " " + want.status
		if why, ok := notExercised[strings.ToLower(want.method)+" "+want.path+" "+want.status]; ok {
			t.Logf("not exercised: %s %s %s: %s", want.method, want.path, want.status, why)
			continue
		}
		if !met[key] {
			t.Errorf("no exchange meets %s %s %s, which the description gives", want.method, want.path, want.status)
		}
	}
}

// described is a status the description gives an operation.
type described struct {
	method, path, status string
	op                   string // its pointer
}

// describedStatuses lists the statuses of every operation.
func describedStatuses(t *testing.T, d *description) []described {
	var out []described
	paths, _ := d.doc["paths"].(map[string]any)
	for path, item := range paths {
		for method := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			op := "/paths/" + escape(path) + "/" + method
			responses, _, err := d.at(op + "/responses")
			if err != nil {
				t.Errorf("%s %s: no responses", method, path)
				continue
			}
			for status := range responses.(map[string]any) {
				out = append(out, described{method: strings.ToUpper(method), path: path, status: status, op: op})
			}
		}
	}
	slices.SortFunc(out, func(a, b described) int { return strings.Compare(a.op+a.status, b.op+b.status) })
	return out
}

// send sends a request and reads the answer.
func send(t *testing.T, method, url, contentType, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return res, b
}

// TestDescriptionRefuses checks the check itself: answers that differ from
// the description in one way each are refused, with the reason.
func TestDescriptionRefuses(t *testing.T) {
	d, err := loadDescription("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const good = `{"n":4,"backend":"bdd","queens":[],"solution":[[0,1],[1,3],[2,0],[3,2]],"elapsed_ms":0.05}`
	answer := func(status int, contentType string, headers ...string) *http.Response {
		res := &http.Response{StatusCode: status, Header: http.Header{}}
		res.Header.Set("Content-Type", contentType)
		for i := 0; i+1 < len(headers); i += 2 {
			res.Header.Set(headers[i], headers[i+1])
		}
		return res
	}
	ok := answer(200, jsonType)
	if err := d.checkResponse("POST", "/api/v1/complete", ok, []byte(good)); err != nil {
		t.Fatalf("a good answer is refused: %v", err)
	}
	tests := []struct {
		name, method, path string
		res                *http.Response
		body, want         string
	}{
		{"a field renamed", "POST", "/api/v1/complete", ok, strings.Replace(good, `"solution"`, `"solutions"`, 1), "solutions"},
		{"a field missing", "POST", "/api/v1/complete", ok, strings.Replace(good, `"backend":"bdd",`, ``, 1), "backend"},
		{"a field of the wrong type", "POST", "/api/v1/complete", ok, strings.Replace(good, `"n":4`, `"n":"4"`, 1), "/n"},
		{"a value outside its enum", "POST", "/api/v1/complete", ok, strings.Replace(good, `"bdd"`, `"z3"`, 1), "/backend"},
		{"a cell of three numbers", "POST", "/api/v1/complete", ok, strings.Replace(good, `[0,1]`, `[0,1,2]`, 1), "/solution/0"},
		{"null where a list is due", "POST", "/api/v1/complete", ok, strings.Replace(good, `"queens":[]`, `"queens":null`, 1), "/queens"},
		{"work of neither kind", "POST", "/api/v1/analyze", ok,
			`{"n":1,"backend":"bdd","order":"row","queens":[],"forced":[[0,0]],"blocked":[],"free":[],"elapsed_ms":0,"work":{"domains_ms":0,"count_ms":0,"nodes":1,"solver_calls":0}}`, "/work"},
		{"a status not described", "POST", "/api/v1/complete", answer(418, jsonType), `{"error":"no"}`, "418"},
		{"a media type not described", "POST", "/api/v1/complete", answer(200, "text/html"), good, "text/html"},
		{"a required header missing", "POST", "/api/v1/complete", answer(429, jsonType), `{"error":"slow down"}`, "Retry-After"},
		{"a header of the wrong type", "POST", "/api/v1/complete", answer(503, jsonType, "Retry-After", "soon"), `{"error":"busy"}`, "Retry-After"},
		{"an error with more than its sentence", "POST", "/api/v1/complete", answer(400, jsonType), `{"error":"bad","code":7}`, "code"},
		{"a path not described", "POST", "/api/v2/complete", ok, good, "no such path"},
		{"a method not described", "PUT", "/api/v1/complete", ok, good, "no such operation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := d.checkResponse(tt.method, tt.path, tt.res, []byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error that mentions %q", err, tt.want)
			}
		})
	}
	for _, tt := range []struct{ templ, path string }{
		{"/api/v1/{endpoint}", "/api/v1/nothing"},
		{"/api/v1/analyze", "/api/v1/analyze"},
	} {
		if !matchTemplate(tt.templ, tt.path) {
			t.Errorf("%s does not match %s", tt.templ, tt.path)
		}
	}
	for _, tt := range []struct{ templ, path string }{
		{"/api/v1/{endpoint}", "/api/v1/"},
		{"/api/v1/{endpoint}", "/api/v1/a/b"},
		{"/api/v1/analyze", "/api/v1/explain"},
	} {
		if matchTemplate(tt.templ, tt.path) {
			t.Errorf("%s matches %s", tt.templ, tt.path)
		}
	}
	if _, err := d.operation("POST", "/api/v1/analyze"); err != nil {
		t.Errorf("a concrete path: %v", err)
	}
	if op, _ := d.operation("POST", "/api/v1/nothing"); !strings.Contains(op, "{endpoint}") {
		t.Errorf("an unknown endpoint is served by %q, want the template", op)
	}
}
