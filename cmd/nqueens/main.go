// Command nqueens counts, analyzes and explains N-Queens placements, and
// configurations of feature models (UVL, DIMACS CNF, FeatureIDE XML,
// SPLOT's SXFM), with the configurator's backends, cross-checks the
// backends against a brute-force oracle, and converts feature models from
// one format to another.
//
// Usage:
//
//	nqueens count      -n N [-backend bdd|sat] [-order row|col|diag|middle] [-method direct|apply] [-budget BYTES] [-cap K] [-cache-dir DIR|off] [-json]
//	nqueens analyze    -n N -queens a1,c5 [-backend bdd|sat] [-cache-dir DIR|off] [-json]
//	nqueens explain    -n N -queens a1,c5 -cell b3 [-backend bdd|sat] [-cache-dir DIR|off] [-json]
//	nqueens crosscheck -n 4-8 [-walks W] [-steps K] [-seed S] [-backends bdd,sat] [-exhaustive N] [-cap K] [-drop LINE]
//
//	nqueens count      -model FILE [-format uvl|dimacs|featureide|sxfm] [-backend bdd|sat|sat-plain] [-cap K] [-json]
//	nqueens analyze    -model FILE [-config FILE] [-select a,b] [-deselect c] [-backend ...] [-json]
//	nqueens explain    -model FILE [-select a,b] [-deselect c] -feature X [-backend ...] [-json]
//	nqueens complete   -model FILE [-select a,b] [-deselect c] [-how uniform|fewest|most] [-timeout D] [-seed S] [-backend ...] [-json]
//	nqueens sample     -model FILE [-select a,b] [-deselect c] [-t 2 | -uniform K] [-seed S] [-backend ...] [-json]
//	nqueens crosscheck -model FILE [-walks W] [-steps K] [-seed S] [-backends sat,sat-plain]
//	nqueens convert    -model FILE -to uvl|dimacs|featureide
//
// A -model file is a feature model in UVL, FeatureIDE XML or SPLOT's SXFM,
// or a CNF in DIMACS, its format told from its name (.uvl; .dimacs, .cnf)
// or else its content; -format overrides. Decisions name features, comma-separated, a name holding a
// comma in double quotes.
//
// Cells are in chess notation: the file letter is the column (a is column
// 0; after z come aa, ab, ... as spreadsheet columns) and the rank number is
// the row + 1. Boards are drawn with rank 1 at the bottom. JSON output gives
// cells as 0-based [row, col] pairs.
//
// The bdd backend keeps every diagram it compiles in -cache-dir (by default
// nqueens in the user's cache directory, $XDG_CACHE_HOME or ~/.cache) and
// loads it from there the next time instead of compiling; count says so on
// its compile line. "-cache-dir off" keeps nothing. A file there that is
// damaged or of another version is refused with a warning on stderr and
// compiled afresh.
//
// The exit status is 0 on success, 1 when the work fails (no solution
// holds the queens, a cross-check disagreement, an interrupted run) and 2
// for a bad command line: an unknown flag, a board size out of range, a
// board beyond what the backend allows.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/nqueens/configurator/configurator"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand: its name, a line of help, and the function
// that parses its arguments and does the work.
type command struct {
	name, synopsis string
	run            func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"count", "count the solutions of an N×N board (the configurations of a -model) and report the size and cost of the compiled model", runCount},
	{"analyze", "draw the board under a placement (classify a -model's features under decisions): forced, blocked, the solutions left", runAnalyze},
	{"explain", "say why a cell is blocked or forced (a -model's feature forced), and what to remove to free it", runExplain},
	{"complete", "finish a configuration of a -model from decisions: uniformly at random, or with the fewest or the most features", runComplete},
	{"sample", "configurations of a -model for testing: a pairwise covering sample, or some drawn uniformly (CSV)", runSample},
	{"crosscheck", "cross-check the backends against a brute-force oracle and print a summary", runCrosscheck},
	{"convert", "write a -model in another format (uvl, dimacs, featureide) on stdout", runConvert},
}

const usage = `nqueens: the BDD/SAT configurator on the command line

Usage:
  nqueens count      -n N [-backend bdd|sat] [-order row|col|diag|middle] [-method direct|apply] [-budget BYTES] [-cap K] [-cache-dir DIR|off] [-json]
  nqueens analyze    -n N -queens a1,c5 [-backend bdd|sat] [-cache-dir DIR|off] [-json]
  nqueens explain    -n N -queens a1,c5 -cell b3 [-backend bdd|sat] [-cache-dir DIR|off] [-json]
  nqueens crosscheck -n 4-8 [-walks W] [-steps K] [-seed S] [-backends bdd,sat] [-exhaustive N] [-cap K] [-drop LINE]

  nqueens count      -model FILE [-format uvl|dimacs|featureide|sxfm] [-backend bdd|sat|sat-plain] [-cap K] [-json]
  nqueens analyze    -model FILE [-config FILE] [-select a,b] [-deselect c] [-backend ...] [-json]
  nqueens explain    -model FILE [-select a,b] [-deselect c] -feature X [-backend ...] [-json]
  nqueens complete   -model FILE [-select a,b] [-deselect c] [-how uniform|fewest|most] [-timeout D] [-seed S] [-backend ...] [-json]
  nqueens sample     -model FILE [-select a,b] [-deselect c] [-t 2 | -uniform K] [-seed S] [-backend ...] [-json]
  nqueens crosscheck -model FILE [-walks W] [-steps K] [-seed S] [-backends sat,sat-plain]
  nqueens convert    -model FILE -to uvl|dimacs|featureide

A -model is a feature model in UVL, FeatureIDE XML or SPLOT's SXFM, or a CNF
file in DIMACS (the format told from the name or the content; -format
overrides); decisions name features.
Cells are in chess notation: file letter = column (a = column 0; past z: aa,
ab, ...), rank = row + 1; boards are drawn with rank 1 at the bottom. JSON
gives cells as 0-based [row, col]. The bdd backend keeps compiled diagrams
in -cache-dir (default: nqueens in $XDG_CACHE_HOME or ~/.cache; "off": none)
and loads them instead of compiling again. "nqueens <command> -h" lists a
command's flags.
`

// run executes the command line args and returns the exit status: 0 on
// success, 1 when the work fails, 2 for a bad command line. Messages go to
// stderr as one line each; results go to stdout.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(args) == 0 {
		fmt.Fprintln(stderr, "nqueens: missing command (count, analyze, explain, complete, sample, crosscheck or convert; see nqueens -h)")
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case isUsage(err):
			fmt.Fprintf(stderr, "nqueens %s: %s\n", c.name, oneLine(err))
			return 2
		default:
			fmt.Fprintf(stderr, "nqueens %s: %s\n", c.name, oneLine(err))
			return 1
		}
	}
	fmt.Fprintf(stderr, "nqueens: unknown command %q (want count, analyze, explain, complete, sample, crosscheck or convert; see nqueens -h)\n", args[0])
	return 2
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// isUsage reports whether err is the user's to fix on the command line:
// a bad flag or value, or a request beyond a backend's limits.
func isUsage(err error) bool {
	var u usageError
	if errors.As(err, &u) {
		return true
	}
	for _, target := range []error{
		configurator.ErrSize, configurator.ErrOrder, configurator.ErrNotation,
		configurator.ErrOffBoard, configurator.ErrDuplicate,
		configurator.ErrTooLarge, configurator.ErrBoardsOnly,
		configurator.ErrUnknownFeature, configurator.ErrDecidedTwice,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// flagSet is a subcommand's flags. Errors come back as values, for run to
// print in one line; -h prints the help to stdout.
type flagSet struct {
	*flag.FlagSet
	synopsis string
	stdout   io.Writer
}

func newFlags(name, synopsis string, stdout io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // the flag package calls it on every error
	return &flagSet{fs, synopsis, stdout}
}

// parse parses args. Leftover arguments are an error: every input is a
// flag.
func parse(fs *flagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(fs.stdout, "nqueens %s: %s\n\nFlags:\n", fs.Name(), fs.synopsis)
			fs.SetOutput(fs.stdout)
			fs.PrintDefaults()
			return err
		}
		return usagef("%v (see nqueens %s -h)", err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see nqueens %s -h)", fs.Arg(0), fs.Name())
	}
	return nil
}
