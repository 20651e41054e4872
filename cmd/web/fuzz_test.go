package main

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

// FuzzParseState feeds arbitrary query strings to the board-state parser:
// it must never panic, refuse only with a 400, 413 or 422 problem, and
// every state it accepts must survive a round trip through its canonical
// address. The timing trail must round-trip too.
func FuzzParseState(f *testing.F) {
	for _, s := range []string{
		"", "n=8", "n=8&q=a1,c5&backend=bdd", "n=12&q=a1&backend=both&order=diag&heat=1&diagram=1",
		"n=eight", "n=0", "n=-1", "n=1000000000000000000", "n=8&q=z99", "n=8&q=a0", "n=8&q=a1,,b2",
		"n=8&q=a1,a1", "backend=zdd", "order=zigzag", "heat=maybe", "n=8&n=9", "q=%ff%fe",
		"n=8&q=a1&place=c5", "n=8&q=a1,c5&remove=a1", "n=8&why=b2&room=b2", "n=8&remove=a1&place=b3",
		"t=%2Ba1_8_31000_95000~open_8_20000_0", "n=4&q=aaaaaaa1", "n=26&q=z26,aa1",
	} {
		f.Add(s)
	}
	lim := limits{maxN: map[string]int{"bdd": 14, "sat": 32}}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		st, err := parseState(v, lim)
		if err != nil {
			var p *problem
			if !errors.As(err, &p) || (p.Status != 400 && p.Status != 413 && p.Status != 422) {
				t.Fatalf("%q: refused with %v", raw, err)
			}
		}
		// Even a refused state is valid enough to show.
		if st.N < 1 || st.N > lim.max(st.Mode) || len(st.Queens) > st.N {
			t.Fatalf("%q: the fallback state %+v is out of range", raw, st)
		}
		if err == nil {
			v2, err := url.ParseQuery(st.query())
			if err != nil {
				t.Fatalf("%q: canonical query %q does not parse: %v", raw, st.query(), err)
			}
			st2, err := parseState(v2, lim)
			if err != nil || !reflect.DeepEqual(st, st2) {
				t.Fatalf("%q: round trip %q gives %+v, %v; want %+v", raw, st.query(), st2, err, st)
			}
			if _, err := parseAction(v, st); err != nil {
				var p *problem
				if !errors.As(err, &p) || p.Status >= 500 {
					t.Fatalf("%q: action refused with %v", raw, err)
				}
			}
		}
		steps := parseTrail(v.Get("t"))
		if len(steps) > maxSteps {
			t.Fatalf("%q: %d steps kept", raw, len(steps))
		}
		if again := parseTrail(formatTrail(steps)); !reflect.DeepEqual(again, steps) && len(steps) > 0 {
			t.Fatalf("%q: trail %v round-trips to %v", raw, steps, again)
		}
	})
}

// FuzzDecodeJSON feeds arbitrary bodies to the API's decoder and request
// checks: they must never panic, and must refuse only with 400, 413 or
// 422 problems.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"n":8}`, `{"n":8,"queens":[[0,0],[1,2]],"backend":"bdd"}`, `{"n":8,"queens":[[0,0]],"cell":[1,1]}`,
		`{"n":"eight"}`, `{"n":8.5}`, `{"n":-1}`, `{"n":1e18}`, `{"n":8,"queens":[[0]]}`, `{"n":8,"queens":[[9,9]]}`,
		`{"n":8,"queens":[[0,0],[0,0]]}`, `{"n":8,"backend":"zdd"}`, `{"n":8,"order":"zigzag"}`, `[8]`, `{"n":8}{"n":8}`,
		`{"n":8,"x":1}`, "{\"n\":8,\"backend\":\"\xff\"}", `{"n":8,"queens":null,"cell":null}`,
	} {
		f.Add([]byte(s))
	}
	cfg := testConfig()
	s, err := newServer(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), newBackends(cfg)...)
	if err != nil {
		f.Fatal(err)
	}
	defer s.close()
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
			var p *problem
			if !errors.As(err, &p) || (p.Status != http.StatusBadRequest && p.Status != http.StatusRequestEntityTooLarge && p.Status != http.StatusUnprocessableEntity) {
				t.Fatalf("%q: refused with %v", body, err)
			}
			if p.Message == "" {
				t.Fatalf("%q: a problem without words", body)
			}
		}
	})
}
