package bdd

import (
	"fmt"
	"os"
	"strings"

	"github.com/nqueens/configurator/configurator"
)

// fileBudget is the budget the command of SpaceFile.Command passes: it
// holds the 16-queens compile (compileBytes, and the states of the direct
// compile beside its nodes) and fails rather than grow past what a 24 GiB
// machine can spare.
const fileBudget = "12G"

// File reports what Options.Dir holds of model's compiled space: the file
// Compile would load (sound or not: Compile finds out), whether Compile
// serves model from that file alone (a board past Options.CompileMaxN,
// within the other limits), and the nqueens command that writes it.
// Backend is a configurator.Filer, so that a caller can say whether a
// compile under way is a load and what a missing file takes.
func (b *Backend) File(model *configurator.Model) configurator.SpaceFile {
	f := configurator.SpaceFile{Required: b.fileOnly(model.N())}
	if b.opts.Dir == "" {
		return f
	}
	p := b.opts.store().path(model)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		f.Path, f.Bytes = p, fi.Size()
	}
	f.Command = fileCommand(model, b.opts.Dir)
	return f
}

// fileOnly reports whether Compile serves the n×n boards from a file
// alone: past CompileMaxN, and within MaxN and the budget, which refuse
// the board whatever the files.
func (b *Backend) fileOnly(n int) bool {
	return b.opts.CompileMaxN > 0 && n > b.opts.CompileMaxN &&
		(b.opts.MaxN <= 0 || n <= b.opts.MaxN) && compileBytes(n) <= float64(b.opts.Budget)
}

// fileCommand is the command line that compiles model and writes its file
// into dir: nqueens count, with the order when it is not the default, a
// budget that fails rather than grows, and the directory when it is not
// the command's default.
func fileCommand(model *configurator.Model, dir string) string {
	cmd := fmt.Sprintf("nqueens count -n %d", model.N())
	if o := model.Order(); o != configurator.RowMajor {
		cmd += fmt.Sprintf(" -order %v", o)
	}
	cmd += " -budget " + fileBudget
	if dir != DefaultDir() {
		cmd += " -cache-dir " + shellQuote(dir)
	}
	return cmd
}

// shellQuote returns s as one word of a POSIX shell's command line: as it
// is when it holds only characters no shell treats specially, between
// single quotes otherwise.
func shellQuote(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
