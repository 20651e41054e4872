package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// analyzeResult is the JSON of nqueens analyze: cells as 0-based
// [row, col], the count as a decimal string (null when the backend does not
// count).
type analyzeResult struct {
	N         int      `json:"n"`
	Backend   string   `json:"backend"`
	Queens    [][2]int `json:"queens"`
	Forced    [][2]int `json:"forced"`
	Blocked   [][2]int `json:"blocked"`
	Solutions *string  `json:"solutions"`
	AtLeast   bool     `json:"at_least,omitempty"`
	CompileMS float64  `json:"compile_ms"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

// openSession parses the -queens flag, compiles the board and classifies
// its squares under the queens, as the board's feature model with their
// squares selected.
func openSession(ctx context.Context, b *backendFlags, queensFlag string) (*configurator.FeatureSession, *configurator.Model, []configurator.Cell, time.Duration, error) {
	m, err := b.model()
	if err != nil {
		return nil, nil, nil, 0, err
	}
	queens, err := parseQueens(m, queensFlag)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	be, err := b.backend()
	if err != nil {
		return nil, nil, nil, 0, err
	}
	sp, compile, err := configurator.Compile(ctx, be, m)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	s, err := configurator.NewFeatureSession(ctx, sp, configurator.BoardDecisions(m, queens))
	if errors.Is(err, configurator.ErrNoSolution) && len(queens) == 0 {
		return nil, nil, nil, 0, fmt.Errorf("the %d×%d board has no solution", b.n, b.n)
	}
	if errors.Is(err, configurator.ErrNoSolution) {
		return nil, nil, nil, 0, fmt.Errorf("no solution holds queens on %s", configurator.FormatCells(queens))
	}
	if err != nil {
		return nil, nil, nil, 0, fmt.Errorf("analyze: %w", err)
	}
	return s, m, queens, compile, nil
}

// squaresIn lists the squares of the board m in state st under the
// session's domains, rank by rank.
func squaresIn(m *configurator.Model, d *configurator.Domains, st configurator.State) []configurator.Cell {
	var out []configurator.Cell
	for f, fst := range d.States {
		if configurator.BoardState(fst) == st {
			out = append(out, m.Cell(f))
		}
	}
	return out
}

func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("analyze", "draw the board under a placement, or classify the features of a -model under decisions", stdout)
	var b backendFlags
	b.register(fs, false, stderr)
	queensFlag := fs.String("queens", "", "the user's `queens` in chess notation, comma-separated: a1,c5")
	var mf modelFlags
	mf.register(fs, true)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if model, err := mf.active(fs); err != nil || model {
		if err != nil {
			return err
		}
		return analyzeModel(ctx, &b, &mf, *asJSON, stdout)
	}
	s, m, queens, compile, err := openSession(ctx, &b, *queensFlag)
	if err != nil {
		return err
	}
	d := s.Domains()
	var solutions string
	var count *string
	if d.Configurations != nil {
		solutions = d.Configurations.String()
		count = &solutions
	}
	forced := squaresIn(m, d, configurator.Forced)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(analyzeResult{
			N: b.n, Backend: b.name,
			Queens:    jsonCells(queens),
			Forced:    jsonCells(forced),
			Blocked:   jsonCells(squaresIn(m, d, configurator.Blocked)),
			Solutions: count, AtLeast: d.AtLeast,
			CompileMS: millis(compile), ElapsedMS: millis(d.Elapsed),
		})
	}
	var out strings.Builder
	writeBoard(&out, m, d)
	out.WriteString("\nQ your queen   q forced queen   x blocked   . free\n\n")
	switch {
	case d.Configurations == nil:
		solutions = "not counted by this backend (sat counts boards up to 10×10)"
	case d.AtLeast:
		solutions = "at least " + solutions
	}
	fmt.Fprintf(&out, "%-10s %s\n", "queens", orNone(configurator.FormatCells(queens)))
	fmt.Fprintf(&out, "%-10s %s\n", "forced", orNone(configurator.FormatCells(forced)))
	fmt.Fprintf(&out, "%-10s %s\n", "solutions", solutions)
	fmt.Fprintf(&out, "%-10s %s (%s)\n", "compile", human(compile), b.name)
	fmt.Fprintf(&out, "%-10s %s\n", "step", human(d.Elapsed))
	_, err = io.WriteString(stdout, out.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// symbols draws the cell states.
var symbols = [...]byte{configurator.Free: '.', configurator.Blocked: 'x', configurator.Queen: 'Q', configurator.Forced: 'q'}

// writeBoard draws the squares of the board m under the domains d as a
// grid with rank 1 at the bottom, files lettered below and above, ranks
// numbered left and right.
func writeBoard(w *strings.Builder, m *configurator.Model, d *configurator.Domains) {
	n := m.N()
	rankW := len(fmt.Sprint(n))
	fileW := len(configurator.FileName(n - 1))
	files := make([]string, n)
	for c := range n {
		files[c] = fmt.Sprintf("%-*s", fileW, configurator.FileName(c))
	}
	header := strings.Repeat(" ", rankW+2) + strings.TrimRight(strings.Join(files, " "), " ") + "\n"
	w.WriteString(header)
	for r := n - 1; r >= 0; r-- {
		fmt.Fprintf(w, "%*d  ", rankW, r+1)
		for c := range n {
			if c > 0 {
				w.WriteByte(' ')
			}
			w.WriteByte(symbols[configurator.BoardState(d.States[m.Var(configurator.Cell{Row: r, Col: c})])])
			w.WriteString(strings.Repeat(" ", fileW-1))
		}
		fmt.Fprintf(w, "  %d\n", r+1)
	}
	w.WriteString(header)
}

// explainResult is the JSON of nqueens explain.
type explainResult struct {
	N        int      `json:"n"`
	Backend  string   `json:"backend"`
	Queens   [][2]int `json:"queens"`
	Cell     [2]int   `json:"cell"`
	State    string   `json:"state"`
	Reason   string   `json:"reason"`
	Because  [][2]int `json:"because"`
	Text     string   `json:"text"`
	MakeRoom [][2]int `json:"make_room,omitempty"`
	// Reasons are every subset-minimal set of queens that rules the cell
	// (Because is the first); More says the list was cut short.
	Reasons   [][][2]int `json:"reasons"`
	More      bool       `json:"more,omitempty"`
	CompileMS float64    `json:"compile_ms"`
	ElapsedMS float64    `json:"elapsed_ms"`
}

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("explain", "say why a cell is blocked or forced, or a feature of a -model forced", stdout)
	var b backendFlags
	b.register(fs, false, stderr)
	queensFlag := fs.String("queens", "", "the user's `queens` in chess notation, comma-separated: a1,c5")
	cellFlag := fs.String("cell", "", "the `cell` to explain, in chess notation: b3")
	var mf modelFlags
	mf.register(fs, true)
	featureFlag := fs.String("feature", "", "-model: the `feature` to explain, by name")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	model, err := mf.active(fs)
	switch {
	case err != nil:
		return err
	case model && *featureFlag == "":
		return usagef("-feature is required with -model (see nqueens explain -h)")
	case model:
		return explainModel(ctx, &b, &mf, *featureFlag, *asJSON, stdout)
	case *featureFlag != "":
		return usagef("-feature needs -model (see nqueens explain -h)")
	}
	if *cellFlag == "" {
		return usagef("-cell is required (see nqueens explain -h)")
	}
	cell, err := configurator.ParseCell(*cellFlag)
	if err != nil {
		return fmt.Errorf("-cell: %w", err)
	}
	if cell.Row >= b.n || cell.Col >= b.n {
		return fmt.Errorf("-cell %v on a %d×%d board: %w", cell, b.n, b.n, configurator.ErrOffBoard)
	}
	s, m, queens, compile, err := openSession(ctx, &b, *queensFlag)
	if err != nil {
		return err
	}
	e, err := s.Explain(ctx, m.Var(cell))
	if errors.Is(err, configurator.ErrNotForced) {
		return fmt.Errorf("%v is %v: nothing to explain (only blocked and forced cells have reasons)", cell, configurator.BoardState(s.Domains().States[m.Var(cell)]))
	}
	if err != nil {
		return err
	}
	state := configurator.BoardState(e.State)
	listed := configurator.BoardReasons(e)
	kind, text := configurator.BoardReason(m, e, listed[0])
	because := configurator.BoardQueens(m, listed[0].Decisions)
	var room []configurator.Cell
	if state == configurator.Blocked && !e.Core {
		room = configurator.BoardQueens(m, e.Room)
	}
	reasons := make([][][2]int, len(listed))
	for i, r := range listed {
		reasons[i] = jsonCells(configurator.BoardQueens(m, r.Decisions))
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(explainResult{
			Reasons: reasons, More: e.More,
			N: b.n, Backend: b.name, Queens: jsonCells(queens),
			Cell: [2]int{cell.Row, cell.Col}, State: state.String(), Reason: kind,
			Because: jsonCells(because), Text: text, MakeRoom: jsonCells(room),
			CompileMS: millis(compile), ElapsedMS: millis(e.Elapsed),
		})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%v is %v: %s\n", cell, state, text)
	fmt.Fprintf(&out, "%-10s %s\n", "because", orNone(configurator.FormatCells(because)))
	switch {
	case state != configurator.Blocked:
	case e.Core:
		fmt.Fprintf(&out, "%-10s impossible: no solution has a queen on %v\n", "make room", cell)
	default:
		fmt.Fprintf(&out, "%-10s remove %s\n", "make room", configurator.FormatCells(room))
	}
	if len(listed) > 1 || e.More {
		for i, r := range listed {
			label := ""
			if i == 0 {
				label = "reasons"
			}
			_, text := configurator.BoardReason(m, e, r)
			fmt.Fprintf(&out, "%-10s %d. %s\n", label, i+1, text)
		}
		if e.More {
			fmt.Fprintf(&out, "%-10s (more may exist: the list stops at %d or at the deadline)\n", "", configurator.MaxReasons)
		}
	}
	fmt.Fprintf(&out, "%-10s %s (%s)\n", "compile", human(compile), b.name)
	fmt.Fprintf(&out, "%-10s %s\n", "explain", human(e.Elapsed))
	_, err = io.WriteString(stdout, out.String())
	return err
}
