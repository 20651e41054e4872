package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func testConfig(dir string) Config {
	return Config{Dir: dir, Bytes: 64 << 20, MaxFeatures: 1000, Slots: 2}
}

func newStore(t *testing.T, cfg Config) *Store {
	t.Helper()
	s, err := New(cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// chain is a UVL model of n optional features under a root, each after
// the first needing the one before: n+1 configurations.
func chain(n int) []byte {
	var b strings.Builder
	b.WriteString("features\n\tRoot\n\t\toptional\n")
	for i := range n {
		fmt.Fprintf(&b, "\t\t\tF%d\n", i)
	}
	b.WriteString("constraints\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "\tF%d => F%d\n", i, i-1)
	}
	return []byte(b.String())
}

// The bundled examples are always there, first, under the hash of their
// files.
func TestExamplesListed(t *testing.T) {
	s := newStore(t, testConfig(""))
	list := files(s)
	all := examples.All()
	if len(list) != len(all) {
		t.Fatalf("List: %d models, want the %d examples", len(list), len(all))
	}
	byID := map[string]Info{}
	for _, in := range list {
		byID[in.ID] = in
	}
	for _, ex := range all {
		in, ok := byID[ID(ex.Format, ex.Source)]
		if !ok || !in.Example || in.Format != ex.Format {
			t.Errorf("example %s: listed as %+v", ex.File, in)
		}
		m, _, err := s.Model(context.Background(), in.ID)
		if err != nil || len(m.Features) != in.Features {
			t.Errorf("example %s: Model: %v", ex.File, err)
		}
	}
}

func TestAdd(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, testConfig(""))
	src := chain(5)
	info, created, err := s.Add(ctx, "chain.uvl", src, "")
	if err != nil || !created {
		t.Fatalf("Add: %v, created %v", err, created)
	}
	want := Info{ID: ID(feature.UVL, src), Name: "chain", Format: feature.UVL, Features: 6, Constraints: 4}
	if info != want {
		t.Errorf("Add: %+v, want %+v", info, want)
	}
	again, created, err := s.Add(ctx, "other name", src, feature.UVL)
	if err != nil || created || again != info {
		t.Errorf("the same file again: %+v, created %v, %v; want %+v, not created", again, created, err, info)
	}
	cnf := []byte("p cnf 2 1\n1 2 0\n")
	info, _, err = s.Add(ctx, "pair.cnf", cnf, "")
	if err != nil || info.Name != "pair" || info.Format != feature.DIMACS || info.Constraints != 1 {
		t.Errorf("a CNF file: %+v, %v", info, err)
	}
	info, _, err = s.Add(ctx, "", []byte("p cnf 1 0\n"), "")
	if err != nil || info.Name != "model "+info.ID[:8] {
		t.Errorf("a CNF file without a name: %+v, %v", info, err)
	}
	// A model's name: its namespace, else its file's, else its root's.
	for _, tc := range []struct{ file, src, want string }{
		{"shop.uvl", "namespace Shop\nfeatures\n\tRoot\n", "Shop"},
		{"shop.uvl", "namespace Root\nfeatures\n\tRoot\n\t\toptional\n\t\t\tA\n", "shop"},
		{"", "features\n\tRoot\n\t\toptional\n\t\t\tB\n", "Root"},
	} {
		info, _, err := s.Add(ctx, tc.file, []byte(tc.src), "")
		if err != nil || info.Name != tc.want {
			t.Errorf("%q uploaded as %q: named %q (%v), want %q", tc.src, tc.file, info.Name, err, tc.want)
		}
	}
	if n := len(files(s)); n != len(examples.All())+6 {
		t.Errorf("List: %d models, want the examples and 6", n)
	}
}

// Each bad file is refused with an error the server can word: the
// reader's, with its position, or the store's bound.
func TestAddRefuses(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig("")
	cfg.MaxFeatures = 10
	s := newStore(t, cfg)
	for _, tc := range []struct {
		name string
		src  []byte
		f    feature.Format
		want error
		pos  string
	}{
		{"truncated.dimacs", []byte("p cnf 3 2\n1 2 0\n-1"), "", feature.ErrSyntax, ""},
		{"binary", []byte("\x00\x01\x02\xff\xfe"), "", feature.ErrSyntax, "1:1"},
		{"typed.uvl", []byte("features\n\tRoot\n\t\toptional\n\t\t\tInteger Speed\n"), "", feature.ErrUnsupported, "4:4"},
		{"import.uvl", []byte("imports\n\tother as O\nfeatures\n\tRoot\n"), "", feature.ErrInvalid, "2:2"},
		{"big.uvl", chain(10), "", feature.ErrLimit, "13:4"},
		{"big.dimacs", []byte("p cnf 1048576 0\n"), "", feature.ErrLimit, "1:1"},
		{"huge", make([]byte, MaxSize+1), feature.UVL, ErrTooBig, ""},
	} {
		_, _, err := s.Add(ctx, tc.name, tc.src, tc.f)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			continue
		}
		var fe *feature.Error
		if tc.pos != "" && (!errors.As(err, &fe) || fe.Pos.String() != tc.pos) {
			t.Errorf("%s: %v, want it at %s", tc.name, err, tc.pos)
		}
	}
	if n := len(files(s)); n != len(examples.All()) {
		t.Errorf("List after refusals: %d models", n)
	}
}

// Uploads survive a restart in the directory; a file that does not hash
// to its name, or does not read, is refused and removed.
func TestDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newStore(t, testConfig(dir))
	src := chain(3)
	info, _, err := s.Add(ctx, "chain.uvl", src, "")
	if err != nil {
		t.Fatal(err)
	}
	bad, _, err := s.Add(ctx, "bad.uvl", chain(4), "")
	if err != nil {
		t.Fatal(err)
	}

	// Damage one file: its content no longer hashes to its name.
	badPath := filepath.Join(dir, bad.ID+".uvl")
	if err := os.WriteFile(badPath, chain(5), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file whose name is its hash but which does not read.
	junk := []byte("features\n\t\"unclosed\n")
	junkPath := filepath.Join(dir, ID(feature.UVL, junk)+".uvl")
	if err := os.WriteFile(junkPath, junk, 0o644); err != nil {
		t.Fatal(err)
	}

	// A name kept that is no name is not trusted either: the model is
	// named by its root.
	renamed, _, err := s.Add(ctx, "renamed.uvl", chain(2), "")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.WriteFile(filepath.Join(dir, renamed.ID+".name"), []byte("two\nlines"), 0o644); err != nil {
		t.Fatal(err)
	}

	s = newStore(t, testConfig(dir))
	m, got, err := s.Model(ctx, info.ID)
	if err != nil || got != info || len(m.Features) != 4 {
		t.Fatalf("after a restart: %+v, %v; want %+v", got, err, info)
	}
	if _, got, err := s.Model(ctx, renamed.ID); err != nil || got.Name != "Root" {
		t.Errorf("a model whose name kept is no name: %+v, %v; want it named Root", got, err)
	}
	for _, id := range []string{bad.ID, ID(feature.UVL, junk)} {
		if _, _, err := s.Model(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("a damaged file: %v, want ErrNotFound", err)
		}
	}
	for _, p := range []string{badPath, junkPath} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: still there (%v)", p, err)
		}
	}
	// The scan lists the sound one, and only it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		list := files(s)
		if len(list) == len(examples.All())+2 && slices.Contains(list, info) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("List after a restart: %+v", list)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, id := range []string{"", "../etc/passwd", strings.Repeat("g", 24), strings.ToUpper(info.ID)} {
		if _, _, err := s.Model(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Model(%q): %v, want ErrNotFound", id, err)
		}
	}
}

// Beyond its bound the store lets the least recently used models go:
// forgotten without a directory, read again from it with one.
func TestBound(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{"", t.TempDir()} {
		cfg := testConfig(dir)
		m, err := modelfile.Parse("chain.uvl", chain(101), "")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Bytes = 2 * Bytes(m) // two models of 100 or so
		s := newStore(t, cfg)
		var ids []string
		for i := range 3 {
			info, _, err := s.Add(ctx, "", chain(100+i), "")
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, info.ID)
		}
		_, _, err = s.Model(ctx, ids[0])
		switch {
		case dir == "" && !errors.Is(err, ErrNotFound):
			t.Errorf("without a directory, the first of three: %v, want ErrNotFound", err)
		case dir != "" && err != nil:
			t.Errorf("with a directory, the first of three: %v", err)
		}
		if _, _, err := s.Model(ctx, ids[2]); err != nil {
			t.Errorf("the last of three: %v", err)
		}
		s.mu.Lock()
		if s.held > cfg.Bytes {
			t.Errorf("holds %d bytes, bound %d", s.held, cfg.Bytes)
		}
		s.mu.Unlock()
	}
}

// files is the list of the models read from files: List less the
// built-in boards.
func files(s *Store) []Info {
	return slices.DeleteFunc(s.List(), func(in Info) bool { return in.Board > 0 })
}

// The built-in boards are listed after the examples, by size, each a
// model of a feature per square, named as the board names it.
func TestBoards(t *testing.T) {
	s := newStore(t, testConfig(""))
	list := s.List()
	ex := len(examples.All())
	if len(list) != ex+MaxBoard {
		t.Fatalf("List: %d models, want %d examples and %d boards", len(list), ex, MaxBoard)
	}
	for n := 1; n <= MaxBoard; n++ {
		in := list[ex+n-1]
		if in.ID != configurator.BoardID(n) || in.Board != n || in.Features != n*n || in.Format != feature.Board {
			t.Errorf("board %d listed as %+v", n, in)
		}
	}
	for _, n := range []int{1, 8, MaxBoard} {
		m, in, err := s.Model(context.Background(), configurator.BoardID(n))
		if err != nil {
			t.Fatal(err)
		}
		if in != list[ex+n-1] || len(m.Features) != n*n || m.Features[0].Name != "a1" || m.Grid == nil || !m.Grid.Queens {
			t.Errorf("queens-%d: %+v, %d features, first %q, grid %+v", n, in, len(m.Features), m.Features[0].Name, m.Grid)
		}
		if got := len(m.Constraints); got != in.Constraints {
			t.Errorf("queens-%d: %d constraints, listed as %d", n, got, in.Constraints)
		}
	}
}

func TestBoardIDs(t *testing.T) {
	for _, tc := range []struct {
		id string
		n  int
	}{
		{"queens-1", 1}, {"queens-8", 8}, {"queens-32", 32},
		{"queens-0", 0}, {"queens-33", 0}, {"queens-08", 0}, {"queens-", 0}, {"queens-8x", 0},
		{"queens-+8", 0}, {"Queens-8", 0}, {"queens-100", 0}, {"", 0},
	} {
		n, ok := Board(tc.id)
		if ok != (tc.n > 0) || n != tc.n && ok {
			t.Errorf("Board(%q) = %d, %t; want %d", tc.id, n, ok, tc.n)
		}
	}
}
