package docs_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// architecture is the document whose import tables TestArchitectureImports
// holds to the code.
const architecture = "architecture.md"

// TestArchitectureImports holds the import tables of architecture.md to
// the module's packages as go list sees them (their imports, tests apart):
// a row of the table headed "imports of the project" names every package of
// the module that its package imports and no other, a row of the table
// headed "imported by" names every package that imports its package and no
// other, and every program in cmd/ has a row of the first.
func TestArchitectureImports(t *testing.T) {
	doc, err := os.ReadFile(architecture)
	if err != nil {
		t.Fatal(err)
	}
	imports := moduleImports(t)
	importers := map[string][]string{}
	for pkg, imps := range imports {
		for _, imp := range imps {
			importers[imp] = append(importers[imp], pkg)
		}
	}
	for _, tab := range []struct {
		heading string
		actual  map[string][]string
	}{
		{"imports of the project", imports},
		{"imported by", importers},
	} {
		rows, err := importTable(string(doc), tab.heading)
		if err != nil {
			t.Errorf("%s: %v", architecture, err)
			continue
		}
		for _, msg := range checkImportTable(rows, tab.actual, imports) {
			t.Errorf("%s, table %q: %s", architecture, tab.heading, msg)
		}
		if tab.heading != "imports of the project" {
			continue
		}
		for pkg := range imports {
			if strings.HasPrefix(pkg, "cmd/") && !slices.ContainsFunc(rows, func(r importRow) bool { return r.pkg == pkg }) {
				t.Errorf("%s, table %q: the program %s has no row", architecture, tab.heading, pkg)
			}
		}
	}
}

// TestImportTableCheck plants wrong rows in a table and checks that each
// is found: a missing import, an import too many, a package the module does
// not have and a row twice.
func TestImportTableCheck(t *testing.T) {
	actual := map[string][]string{
		"cmd/a": {"lib/x", "lib/y"},
		"lib/x": {"lib/y"},
		"lib/y": {},
	}
	for _, tt := range []struct {
		name, table string
		want        []string // a part of each message, in order
	}{
		{"true", "| `cmd/a` | `lib/x`, `lib/y` | why |\n| `lib/x` | `lib/y` |\n| `lib/y` | |", nil},
		{"one missing", "| `cmd/a` | `lib/x` |", []string{"line 5: the row of cmd/a lacks lib/y"}},
		{"one too many", "| `lib/x` | `lib/y`; `cmd/a` |", []string{"line 5: the row of lib/x names cmd/a"}},
		{"no such package", "| `lib/z` | |\n| `lib/y` | `lib/q` |", []string{"line 5: lib/z is no package", "line 6: the row of lib/y names lib/q"}},
		{"a row twice", "| `lib/y` | |\n| `lib/y` | |", []string{"line 6: lib/y has a row already"}},
	} {
		doc := "Text.\n\n| package | imports of the project | note |\n|---|---|---|\n" + tt.table + "\n\nMore text.\n"
		rows, err := importTable(doc, "imports of the project")
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		got := checkImportTable(rows, actual, actual)
		ok := len(got) == len(tt.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], tt.want[i])
		}
		if !ok {
			t.Errorf("%s: found %q, want messages with %q", tt.name, got, tt.want)
		}
	}
	if _, err := importTable("| package | imported by |\n|---|---|\n", "imports of the project"); err == nil {
		t.Errorf("a document without the table: no error")
	}
}

// moduleImports lists the module's packages with
// `go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...` run at the
// repository's root, and returns for each, by its path within the module
// ("cmd/web", "configurator"), the packages of the module it imports,
// tests apart. It skips the test when there is no go command.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: the packages' imports cannot be listed")
	}
	run := func(args ...string) string {
		cmd := exec.CommandContext(t.Context(), goCmd, args...)
		cmd.Dir = ".."
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return string(out)
	}
	module := strings.TrimSpace(run("list", "-m"))
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(run("list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module+"/")
		if !ok {
			t.Fatalf("go list: %s is not in the module %s", fields[0], module)
		}
		imports[pkg] = []string{} // a package that imports nothing of the module is one too
		for _, imp := range fields[1:] {
			if imp, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports[pkg] = append(imports[pkg], imp)
			}
		}
	}
	return imports
}

// importRow is a row of an import table: the package of its first cell
// and the packages of its second, on a line of the document.
type importRow struct {
	line int
	pkg  string
	pkgs []string
}

// quoted matches a path in backquotes.
var quoted = regexp.MustCompile("`([^`]*)`")

// importTable returns the rows of the Markdown table of doc headed
// "| package | heading |" (more columns may follow: notes, which are not
// read). A row's first cell is a package path in backquotes; its second
// holds package paths in backquotes, the words and punctuation between
// them read as prose. Paths are within the module: "configurator",
// "cmd/web".
func importTable(doc, heading string) ([]importRow, error) {
	lines := strings.Split(doc, "\n")
	for i, line := range lines {
		cells := tableCells(line)
		if len(cells) < 2 || cells[0] != "package" || cells[1] != heading {
			continue
		}
		var rows []importRow
		// The rows begin after the header's delimiter row.
		for j := i + 2; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
			cells := tableCells(lines[j])
			first := quoted.FindAllStringSubmatch(cells[0], -1)
			if len(cells) < 2 || len(first) != 1 {
				return nil, fmt.Errorf("line %d: want a package in backquotes and the packages it names", j+1)
			}
			row := importRow{line: j + 1, pkg: first[0][1]}
			for _, m := range quoted.FindAllStringSubmatch(cells[1], -1) {
				row.pkgs = append(row.pkgs, m[1])
			}
			rows = append(rows, row)
		}
		return rows, nil
	}
	return nil, fmt.Errorf("no table headed | package | %s |", heading)
}

// tableCells splits a row of a Markdown table into its trimmed cells.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") {
		return nil
	}
	cells := strings.Split(strings.Trim(line, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// checkImportTable compares the rows of an import table with actual, the
// packages each package names in fact, and returns what differs: a row for
// a package not in packages (the module's), a row twice, a package a row
// lacks and one it lists that actual does not name.
func checkImportTable(rows []importRow, actual, packages map[string][]string) []string {
	var msgs []string
	seen := map[string]bool{}
	for _, r := range rows {
		if _, ok := packages[r.pkg]; !ok {
			msgs = append(msgs, fmt.Sprintf("line %d: %s is no package of the module", r.line, r.pkg))
			continue
		}
		if seen[r.pkg] {
			msgs = append(msgs, fmt.Sprintf("line %d: %s has a row already", r.line, r.pkg))
			continue
		}
		seen[r.pkg] = true
		for _, p := range sorted(actual[r.pkg]) {
			if !slices.Contains(r.pkgs, p) {
				msgs = append(msgs, fmt.Sprintf("line %d: the row of %s lacks %s", r.line, r.pkg, p))
			}
		}
		for _, p := range sorted(r.pkgs) {
			if !slices.Contains(actual[r.pkg], p) {
				msgs = append(msgs, fmt.Sprintf("line %d: the row of %s names %s, which go list does not show", r.line, r.pkg, p))
			}
		}
	}
	return msgs
}

// sorted returns a sorted copy of s.
func sorted(s []string) []string {
	return slices.Sorted(slices.Values(s))
}
