package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestBoardsBeyondCompileMaxNFromFilesOnly: with -bdd-compile-max-n below
// -bdd-max-n, the boards between are refused, with the command that makes
// their file, until a compiled file of them is in -cache-dir when the
// server starts; then they are served from it. (10×10 stands in for
// 16×16, which no test compiles.)
func TestBoardsBeyondCompileMaxNFromFilesOnly(t *testing.T) {
	dir := t.TempDir()
	// serve starts the server, analyzes a1 on each board, and stops it.
	serve := func(boards ...int) (statuses []int, bodies []string) {
		ctx, cancel := context.WithCancel(context.Background())
		addr, _, exited := startServer(t, ctx, io.Discard, "-cache-dir", dir, "-bdd-max-n", "10", "-bdd-compile-max-n", "9")
		defer stopServer(t, cancel, exited)
		for _, n := range boards {
			res, err := http.Post("http://"+addr+"/api/v1/analyze", "application/json", strings.NewReader(fmt.Sprintf(`{"n":%d,"queens":[[0,0]]}`, n)))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			statuses, bodies = append(statuses, res.StatusCode), append(bodies, string(body))
		}
		return statuses, bodies
	}
	status, body := serve(9, 10)
	// 9×9 is compiled: 28 of its 352 solutions have a queen on a1.
	if status[0] != 200 || !strings.Contains(body[0], `"solutions":"28"`) {
		t.Errorf("9×9, within -bdd-compile-max-n: %d %s", status[0], body[0])
	}
	if status[1] != http.StatusRequestEntityTooLarge || !strings.Contains(body[1], "nqueens count -n 10") {
		t.Errorf("10×10 without its file: %d %s; want a 413 that says how to make the file", status[1], body[1])
	}
	// The file, as nqueens count writes it.
	model := configuratortest.Model(t, 10, configurator.RowMajor)
	if _, err := bdd.New(bdd.Options{Dir: dir}).Compile(context.Background(), model); err != nil {
		t.Fatal(err)
	}
	status, body = serve(10)
	if status[0] != 200 || !strings.Contains(body[0], `"solutions":"64"`) {
		t.Errorf("10×10 with its file: %d %s; want 64 solutions", status[0], body[0])
	}
}
