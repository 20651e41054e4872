package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// runArgs runs the command line in-process and returns its exit status
// and output.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestBadInput: every mistake on the command line gives status 2 and one
// line on stderr that names it, nothing on stdout, no stack trace.
func TestBadInput(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{nil, "missing command"},
		{[]string{"frob"}, `unknown command "frob"`},
		{[]string{"count", "-x"}, "flag provided but not defined: -x"},
		{[]string{"count", "-n"}, "flag needs an argument: -n"},
		{[]string{"count", "-n", "eight"}, `invalid value "eight" for flag -n`},
		{[]string{"count", "-n", "0"}, "-n 0: the board size must be between 1 and 1000"},
		{[]string{"count", "-n", "-3"}, "-n -3: the board size must be between 1 and 1000"},
		{[]string{"count", "-n", "1001"}, "-n 1001"},
		{[]string{"count", "-n", "8", "extra"}, `unexpected argument "extra"`},
		{[]string{"count", "-backend", "zdd"}, `-backend "zdd": want bdd or sat`},
		{[]string{"count", "-order", "zigzag"}, `-order "zigzag"`},
		{[]string{"count", "-method", "magic"}, `-method "magic": want direct or apply`},
		{[]string{"count", "-budget", "lots"}, `"lots" is not a size in bytes`},
		{[]string{"count", "-cap", "-1", "-backend", "sat"}, "-cap -1"},
		// Beyond a backend's limits.
		{[]string{"count", "-n", "121", "-backend", "sat"}, "too large for this backend"},
		{[]string{"count", "-n", "12", "-budget", "64K"}, "too large for this backend"},
		{[]string{"analyze", "-queens", "a9"}, "-queens: queen a9 on a 8×8 board: cell is off the board"},
		{[]string{"analyze", "-queens", "a0"}, `-queens: cell "a0": not a cell in chess notation`},
		{[]string{"analyze", "-queens", "a1,,c5"}, `cell "": not a cell in chess notation`},
		{[]string{"analyze", "-queens", "a1,a1"}, "queen a1: queen placed twice"},
		{[]string{"explain", "-queens", "a1"}, "-cell is required"},
		{[]string{"explain", "-queens", "a1", "-cell", "1a"}, `-cell: cell "1a": not a cell in chess notation`},
		{[]string{"explain", "-queens", "a1", "-cell", "i1"}, "-cell i1 on a 8×8 board: cell is off the board"},
		{[]string{"crosscheck", "-n", "4-99"}, `-n "4-99": sizes from 1 to 8`},
		{[]string{"crosscheck", "-n", "9-4"}, `-n "9-4"`},
		{[]string{"crosscheck", "-n", "x"}, `-n "x": want a board size or a range`},
		{[]string{"crosscheck", "-n", "4", "-backends", "bdd,zdd"}, `-backend "zdd"`},
		{[]string{"crosscheck", "-walks", "-1"}, "must not be negative"},
	}
	for _, tt := range tests {
		code, out, errOut := runArgs(tt.args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", tt.args, code, errOut)
		}
		if out != "" {
			t.Errorf("%q: stdout %q, want nothing", tt.args, out)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "\n") || !strings.HasPrefix(errOut, "nqueens") {
			t.Errorf("%q: stderr %q, want one line starting with nqueens", tt.args, errOut)
		}
		if !strings.Contains(errOut, tt.msg) {
			t.Errorf("%q: stderr %q does not say %q", tt.args, errOut, tt.msg)
		}
		if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("%q: stderr %q looks like a crash", tt.args, errOut)
		}
	}
}

// TestFailures: well-formed requests that cannot be answered give status
// 1 and one line.
func TestFailures(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"analyze", "-queens", "a1,b1"}, "no solution holds queens on a1,b1"},
		{[]string{"analyze", "-queens", "a1,b3", "-backend", "sat"}, "no solution holds queens on a1,b3"},
		{[]string{"analyze", "-n", "3"}, "the 3×3 board has no solution"},
		{[]string{"explain", "-queens", "a1", "-cell", "e2"}, "e2 is free: nothing to explain"},
		{[]string{"explain", "-queens", "a1", "-cell", "a1"}, "a1 is queen: nothing to explain"},
	}
	for _, tt := range tests {
		code, out, errOut := runArgs(tt.args...)
		if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1 and one line saying %q", tt.args, code, out, errOut, tt.msg)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"count", "-h"}, {"analyze", "-help"}, {"crosscheck", "-h"}} {
		code, out, errOut := runArgs(args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "nqueens") || !strings.Contains(out, "-") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestCountJSON(t *testing.T) {
	tests := []struct {
		args      []string
		solutions string
		nodes     int // 0: no node count (sat)
		backend   string
		order     string
		method    string
	}{
		{[]string{"-n", "8"}, "92", 2451, "bdd", "row", "direct"},
		{[]string{"-n", "8", "-method", "apply"}, "92", 2451, "bdd", "row", "apply"},
		{[]string{"-n", "10"}, "724", 25945, "bdd", "row", "direct"},
		{[]string{"-n", "6"}, "4", 129, "bdd", "row", "direct"},
		{[]string{"-n", "2"}, "0", 0, "bdd", "row", "direct"},
		{[]string{"-n", "1"}, "1", 1, "bdd", "row", "direct"},
		{[]string{"-n", "8", "-order", "col"}, "92", 2451, "bdd", "col", "direct"}, // the board is symmetric
		{[]string{"-n", "8", "-backend", "sat"}, "92", 0, "sat", "row", ""},
	}
	for _, tt := range tests {
		code, out, errOut := runArgs(append([]string{"count", "-json"}, tt.args...)...)
		if code != 0 || errOut != "" {
			t.Fatalf("%q: exit %d, stderr %q", tt.args, code, errOut)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%q: %v in %q", tt.args, err, out)
		}
		if strings.Count(out, "\n") != 1 {
			t.Errorf("%q: %q is not one JSON line", tt.args, out)
		}
		if r["solutions"] != tt.solutions || r["backend"] != tt.backend || r["order"] != tt.order {
			t.Errorf("%q: %s", tt.args, out)
		}
		if m, _ := r["method"].(string); m != tt.method {
			t.Errorf("%q: method %q, want %q", tt.args, m, tt.method)
		}
		nodes, hasNodes := r["nodes"].(float64)
		if tt.backend == "bdd" && (!hasNodes || int(nodes) != tt.nodes) || tt.backend == "sat" && hasNodes {
			t.Errorf("%q: nodes %v, want %d", tt.args, r["nodes"], tt.nodes)
		}
		for _, k := range []string{"compile_ms", "peak_bytes", "n"} {
			if v, ok := r[k].(float64); !ok || v < 0 || k == "peak_bytes" && v < 1<<20 {
				t.Errorf("%q: %s = %v", tt.args, k, r[k])
			}
		}
	}
}

func TestCountText(t *testing.T) {
	code, out, errOut := runArgs("count", "-n", "8")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var keys []string
	for _, l := range lines {
		// Aligned: the value starts at column 13 on every line.
		if len(l) < 14 || l[12] != ' ' || l[13] == ' ' {
			t.Errorf("line %q is not aligned", l)
		}
		keys = append(keys, strings.TrimSpace(l[:13]))
	}
	if got := strings.Join(keys, ","); got != "board,backend,order,method,solutions,nodes,compile,count,peak memory" {
		t.Errorf("lines %s", got)
	}
	for _, want := range []string{"board        8×8\n", "solutions    92\n", "nodes        2451\n", "method       direct\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The SAT backend counts boards up to 10×10 only.
	_, out, _ = runArgs("count", "-n", "11", "-backend", "sat")
	if !strings.Contains(out, "solutions    not counted by this backend") {
		t.Errorf("sat count of 11×11:\n%s", out)
	}
	_, out, _ = runArgs("count", "-n", "11", "-backend", "sat", "-json")
	if !strings.Contains(out, `"solutions":null`) {
		t.Errorf("sat count of 11×11: %s", out)
	}
	// The SAT backend has no nodes and says when its count is a bound.
	_, out, _ = runArgs("count", "-n", "9", "-backend", "sat", "-cap", "100")
	if !strings.Contains(out, "solutions    at least 100\n") || strings.Contains(out, "nodes") || strings.Contains(out, "method") {
		t.Errorf("sat count with a cap:\n%s", out)
	}
}

// The board of a1,c5 on 8×8: one solution left, six forced queens.
const a1c5 = `   a b c d e f g h
8  x x x q x x x x  8
7  x q x x x x x x  7
6  x x x x x x q x  6
5  x x Q x x x x x  5
4  x x x x x q x x  4
3  x x x x x x x q  3
2  x x x x q x x x  2
1  Q x x x x x x x  1
   a b c d e f g h

Q your queen   q forced queen   x blocked   . free

queens     a1,c5
forced     e2,h3,f4,g6,b7,d8
solutions  1
`

func TestAnalyze(t *testing.T) {
	for _, backend := range []string{"bdd", "sat"} {
		code, out, errOut := runArgs("analyze", "-n", "8", "-queens", "a1,c5", "-backend", backend)
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", backend, code, errOut)
		}
		if !strings.HasPrefix(out, a1c5) {
			t.Errorf("%s: got\n%s\nwant it to start with\n%s", backend, out, a1c5)
		}
		if !strings.Contains(out, "\ncompile    ") || !strings.Contains(out, "("+backend+")\n") || !strings.Contains(out, "\nstep       ") {
			t.Errorf("%s: no timings in\n%s", backend, out)
		}
	}
}

// TestAnalyzeBoards: free cells, rank numbers of two digits, two-letter
// files.
func TestAnalyzeBoards(t *testing.T) {
	_, out, _ := runArgs("analyze", "-n", "4")
	want := `   a b c d
4  x . . x  4
3  . x x .  3
2  . x x .  2
1  x . . x  1
   a b c d
`
	if !strings.HasPrefix(out, want) || !strings.Contains(out, "queens     none\n") || !strings.Contains(out, "solutions  2\n") {
		t.Errorf("4×4 empty:\n%s", out)
	}
	_, out, _ = runArgs("analyze", "-n", "10", "-queens", "j10")
	lines := strings.Split(out, "\n")
	if lines[0] != "    a b c d e f g h i j" || lines[1] != "10  x x x x x x x x x Q  10" || lines[10] != " 1  x . . . . . . . . x  1" {
		t.Errorf("10×10 with j10:\n%s", out)
	}
	code, out, _ := runArgs("analyze", "-n", "27", "-queens", "aa27", "-backend", "sat")
	lines = strings.Split(out, "\n")
	if code != 0 || !strings.HasSuffix(lines[0], "y  z  aa") || !strings.HasSuffix(lines[1], "x  Q   27") {
		t.Errorf("27×27 with aa27: exit %d\n%s", code, strings.Join(lines[:3], "\n"))
	}
}

func TestAnalyzeJSON(t *testing.T) {
	code, out, errOut := runArgs("analyze", "-n", "8", "-queens", "a1,c5", "-json")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var r struct {
		N         int      `json:"n"`
		Backend   string   `json:"backend"`
		Queens    [][2]int `json:"queens"`
		Forced    [][2]int `json:"forced"`
		Blocked   [][2]int `json:"blocked"`
		Solutions string   `json:"solutions"`
		CompileMS *float64 `json:"compile_ms"`
		ElapsedMS *float64 `json:"elapsed_ms"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// e2 h3 f4 g6 b7 d8, as 0-based [row, col], row-major.
	forced := [][2]int{{1, 4}, {2, 7}, {3, 5}, {5, 6}, {6, 1}, {7, 3}}
	if r.N != 8 || r.Backend != "bdd" || r.Solutions != "1" || len(r.Blocked) != 64-8 ||
		!equalPairs(r.Queens, [][2]int{{0, 0}, {4, 2}}) || !equalPairs(r.Forced, forced) || r.CompileMS == nil || r.ElapsedMS == nil {
		t.Errorf("got %s", out)
	}
	// The empty placement: lists, not nulls.
	_, out, _ = runArgs("analyze", "-n", "5", "-json")
	if !strings.Contains(out, `"queens":[]`) || !strings.Contains(out, `"forced":[]`) || !strings.Contains(out, `"blocked":[]`) || !strings.Contains(out, `"solutions":"10"`) {
		t.Errorf("5×5 empty: %s", out)
	}
}

func equalPairs(a, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestExplain(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-queens", "a1,c5", "-cell", "b3"}, "b3 is blocked: no solution holds queens on a1 and here\nbecause    a1\nmake room  remove a1\n"},
		{[]string{"-queens", "a1,c5", "-cell", "g2"}, "g2 is blocked: no solution holds queens on a1, c5 and here\nbecause    a1,c5\nmake room  remove a1\n"},
		{[]string{"-queens", "a1,c5", "-cell", "e4", "-backend", "sat"}, "e4 is blocked: no solution holds queens on a1 and here\nbecause    a1\nmake room  remove a1,c5\n"},
		{[]string{"-queens", "a1,c5", "-cell", "h1"}, "h1 is blocked: attacked by a1\nbecause    a1\nmake room  remove a1,c5\n" + // no solution has c5 and h1,
			"reasons    1. attacked by a1\n           2. no solution holds queens on c5 and here\ncompile"},
		{[]string{"-queens", "a1,c5", "-cell", "E2"}, "e2 is forced: every solution with queens on a1, c5 has a queen here\nbecause    a1,c5\ncompile"},
		{[]string{"-n", "4", "-cell", "a1"}, "a1 is blocked: no solution has a queen here, whatever else is placed\nbecause    none\nmake room  impossible: no solution has a queen on a1\n"},
	}
	for _, tt := range tests {
		code, out, errOut := runArgs(append([]string{"explain"}, tt.args...)...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, tt.want) {
			t.Errorf("%q: exit %d, stderr %q, got\n%s\nwant it to start with\n%s", tt.args, code, errOut, out, tt.want)
		}
	}
	code, out, _ := runArgs("explain", "-queens", "a1,c5", "-cell", "g2", "-json")
	var r struct {
		State, Reason, Text string
		Cell                [2]int
		Queens, Because     [][2]int
	}
	var raw struct {
		MakeRoom [][2]int   `json:"make_room"`
		Reasons  [][][2]int `json:"reasons"`
	}
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if r.State != "blocked" || r.Reason != "no-completion" || r.Text != "no solution holds queens on a1, c5 and here" ||
		r.Cell != [2]int{1, 6} || !equalPairs(r.Queens, [][2]int{{0, 0}, {4, 2}}) ||
		!equalPairs(r.Because, [][2]int{{0, 0}, {4, 2}}) || !equalPairs(raw.MakeRoom, [][2]int{{0, 0}}) ||
		len(raw.Reasons) != 1 || !equalPairs(raw.Reasons[0], [][2]int{{0, 0}, {4, 2}}) {
		t.Errorf("explain JSON: %s", out)
	}
}

func TestCrosscheck(t *testing.T) {
	code, out, errOut := runArgs("crosscheck", "-n", "4-7", "-walks", "3", "-steps", "10", "-seed", "7", "-exhaustive", "4")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	lines := strings.Split(out, "\n")
	header := strings.Fields(lines[0])
	if strings.Join(header, " ") != "N placements walks steps disagreements bdd sat oracle" {
		t.Errorf("header %q", lines[0])
	}
	// Every reachable placement for N <= 4 (31 of them), then the walks.
	for i, want := range []string{"4 31 3 30 0", "5 0 3 30 0", "6 0 3 30 0", "7 0 3 30 0"} {
		if got := strings.Join(strings.Fields(lines[i+1])[:5], " "); got != want {
			t.Errorf("row %d: %q, want it to start with %q", i+1, lines[i+1], want)
		}
	}
	if !strings.Contains(out, "no disagreements\n") {
		t.Errorf("no verdict in\n%s", out)
	}
}

// TestCrosscheckPlantedFault: a model without one line makes the check
// fail with status 1 and name the smallest placement that shows it. Every
// minimal reason is checked, so the fault shows in every explanation that
// lists the queen on b1 as a reason for a2, not only where it comes first.
func TestCrosscheckPlantedFault(t *testing.T) {
	if testing.Short() {
		t.Skip("the cross-check's exhaustive 6×6: not with -short")
	}
	code, out, errOut := runArgs("crosscheck", "-n", "6", "-walks", "1", "-steps", "5", "-drop", "anti-diagonal b1-a2")
	if code != 1 || errOut != "nqueens crosscheck: 128 disagreements with the oracle\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	// Only explanations show this fault: with a queen on b1, a2 is
	// blocked by the oracle's rule because b1 attacks it.
	for _, want := range []string{
		"smallest reproducing decisions: 6-queens [+b1]\n",
		`bdd, 6-queens, decisions [+b1]: explain "a2": got no attack [+b1], want attack`,
		`reproduce: nqueens explain -model queens-6 -feature a2 -select b1 -backend bdd (on the model without anti-diagonal b1-a2)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, _, errOut = runArgs("crosscheck", "-n", "6", "-drop", "anti-diagonal z1-a2")
	if code != 2 || !strings.Contains(errOut, `-drop "anti-diagonal z1-a2": no such line`) {
		t.Errorf("unknown line: exit %d, stderr %q", code, errOut)
	}
}
