package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/internal/web/problem"
)

// FuzzDecodeJSON feeds arbitrary bodies to the API's decoder and request
// checks: they must never panic, and must refuse only with 400, 413 or
// 422 problems.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"n":8}`, `{"n":8,"queens":[[0,0],[1,2]],"backend":"bdd"}`, `{"n":8,"queens":[[0,0]],"cell":[1,1]}`,
		`{"n":"eight"}`, `{"n":8.5}`, `{"n":-1}`, `{"n":1e18}`, `{"n":8,"queens":[[0]]}`, `{"n":8,"queens":[[9,9]]}`,
		`{"n":8,"queens":[[0,0],[0,0]]}`, `{"n":8,"backend":"zdd"}`, `{"n":8,"order":"zigzag"}`, `[8]`, `{"n":8}{"n":8}`,
		`{"n":8,"x":1}`, "{\"n\":8,\"backend\":\"\xff\"}", `{"n":8,"queens":null,"cell":null}`, `{"n":8,"n":9}`, `{"N":8}`, `{"n":8,"queenſ":[]}`,
	} {
		f.Add([]byte(s))
	}
	cfg := testConfig()
	s, err := New(cfg.config(), slog.New(slog.NewTextHandler(io.Discard, nil)), cfg.engines()...)
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	f.Fuzz(func(t *testing.T, body []byte) {
		var req explainRequest
		err := decodeJSON(body, &req)
		if err == nil {
			_, _, err = s.apiState(req.boardRequest)
			if err == nil && req.Cell != nil {
				_, err = apiCell(req.Cell, *req.N, "cell")
			}
		}
		if err != nil {
			var p *problem.Problem
			if !errors.As(err, &p) || (p.Status != http.StatusBadRequest && p.Status != http.StatusRequestEntityTooLarge && p.Status != http.StatusUnprocessableEntity) {
				t.Fatalf("%q: refused with %v", body, err)
			}
			if p.Message == "" {
				t.Fatalf("%q: a problem without words", body)
			}
		}
	})
}

// fuzzServer is a server with small limits, so that every board a fuzzer
// asks for compiles in microseconds.
func fuzzServer(f *testing.F) *Server {
	cfg := testConfig()
	cfg.BDD.MaxN, cfg.SAT.MaxN = 7, 7
	cfg.Guard.RequestDeadline = 10 * time.Second
	s, err := New(cfg.config(), slog.New(slog.NewTextHandler(io.Discard, nil)), cfg.engines()...)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	return s
}

// FuzzPage sends arbitrary query strings to the one page and to the
// board page's old addresses (sent on to it) through the whole server:
// whatever the address, the answer is never a 5xx, and it carries no
// markup of the address (the page's own scripts are its only ones).
func FuzzPage(f *testing.F) {
	for _, s := range []string{
		"model=queens-6", "model=queens-6&select=b1,d2", "model=queens-6&select=b1&square=d2", "model=queens-6&select=b1&square=d2&rule=1",
		"model=queens-6&select=b1,d2&undo=b1", "model=queens-6&select=b1&ask=a1", "model=queens-6&select=b1,d2&why=a3&room=a3",
		"model=queens-6&select=b1&deselect=c1,d1", "model=queens-5&backend=both&diagram=1", "model=queens-7&select=a1&backend=sat",
		"model=queens-4&select=a1,b3", "model=queens-3", "model=queens-9", "model=queens-0", "model=queens-eight", "model=queens-6&select=z99",
		"model=queens-6&square=", "model=queens-6&select=a1&undo=a1&square=b3", "model=queens-6&t=select_1_1_1", "model=queens-6&poll=1",
		"model=queens-6&backend=%3Cscript%3E", "model=queens-6&select=%ff", "model=queens-6&open=%3Cb%3E", "model=queens-6&find=%3Cb%3E&show=free",
		"n=8", "n=6&q=b1,d2", "n=6&q=b1&place=d2", "n=6&q=b1,d2&remove=b1", "n=6&q=b1&why=a1", "n=6&q=b1,d2&room=a3",
		"n=3", "n=9", "n=eight", "n=6&q=z99", "n=6&place=", "q=%ff", "n=6&l=%3Cb%3E",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	s := fuzzServer(f)
	h := s.Handler()
	clean := map[bool]int{}
	for _, htmx := range []bool{false, true} {
		clean[htmx] = strings.Count(servePage(h, "model=queens-4", htmx).Body.String(), "<script")
	}
	if clean[false] == 0 {
		f.Fatal("a clean page has no script tags to compare with")
	}
	f.Fuzz(func(t *testing.T, query string, htmx bool) {
		if strings.ContainsAny(query, "#\x00") {
			return // not part of a request's query
		}
		rec := servePage(h, query, htmx)
		if rec.Code >= 500 {
			t.Fatalf("%q (htmx %v): status %d:\n%s", query, htmx, rec.Code, rec.Body)
		}
		if n := strings.Count(rec.Body.String(), "<script"); n > clean[htmx] {
			t.Fatalf("%q (htmx %v): %d script tags, a clean page has %d", query, htmx, n, clean[htmx])
		}
	})
}

// servePage asks the handler for /?query.
func servePage(h http.Handler, query string, htmx bool) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.URL.RawQuery = query
	req.RequestURI = "/?" + query
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// FuzzAPI sends arbitrary bodies to the four API endpoints through the
// whole server, backends included: the answer is never a 5xx, and every
// refusal is a JSON error in words.
func FuzzAPI(f *testing.F) {
	for _, s := range []string{
		`{"n":6}`, `{"n":6,"queens":[[0,1],[1,3]],"backend":"sat"}`, `{"n":6,"queens":[[0,1]],"cell":[0,0]}`,
		`{"n":6,"queens":[[0,1],[1,3]],"cell":[2,5],"backend":"bdd","order":"middle"}`, `{"n":4,"cell":[0,0]}`,
		`{"n":3}`, `{"n":2,"queens":[[0,0]]}`, `{"n":7,"queens":[[0,0],[1,1]]}`, `{"n":8}`, `{"n":"six"}`, `[6]`, `{`,
		`{"n":6,"queens":[[0,1]],"view":"bdd","order":"col"}`, `{"n":9,"view":"ranks"}`, `{"n":6,"view":"dot"}`,
	} {
		for ep := range uint8(4) {
			f.Add([]byte(s), ep)
		}
	}
	s := fuzzServer(f)
	h := s.Handler()
	endpoints := []string{"/api/v1/analyze", "/api/v1/explain", "/api/v1/complete", "/api/v1/diagram"}
	f.Fuzz(func(t *testing.T, body []byte, ep uint8) {
		path := endpoints[int(ep)%len(endpoints)]
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: status %d: %s", path, body, rec.Code, rec.Body)
		}
		if rec.Code != http.StatusOK {
			var e apiError
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("%s %q: status %d without a JSON error: %s", path, body, rec.Code, rec.Body)
			}
		}
	})
}
