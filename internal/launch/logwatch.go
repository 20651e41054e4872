package launch

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// How much of the log a logWatch keeps: the first error lines (the cause
// is usually in the first) and the last lines (what happened at the end).
const (
	keepErrors = 10
	keepLast   = 30
)

// logWatch reads the server's log (log/slog text lines): it finds the
// addresses in the start-up line, counts warnings and errors, keeps the
// first errors and the last lines, and copies everything to an optional
// writer.
type logWatch struct {
	copyTo io.Writer
	ready  chan struct{} // closed once the start-up line is read

	mu         sync.Mutex
	url, debug string // roots of the listeners, from the start-up line
	warnings   int
	nerrors    int
	errors     []string // the first keepErrors error lines
	last       []string // the last keepLast lines
}

func newLogWatch(copyTo io.Writer) *logWatch {
	return &logWatch{copyTo: copyTo, ready: make(chan struct{})}
}

// scan reads r to its end.
func (w *logWatch) scan(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		w.line(sc.Text())
	}
	io.Copy(io.Discard, r) // after a line too long for the scanner
}

func (w *logWatch) line(s string) {
	if w.copyTo != nil {
		fmt.Fprintln(w.copyTo, s)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.url == "" {
		// The start-up line says where the server listens:
		// url=http://127.0.0.1:port/ and, with a debug listener,
		// debug=http://127.0.0.1:port/debug/stats.
		if u := root(logField(s, "url")); u != "" {
			w.url, w.debug = u, root(logField(s, "debug"))
			close(w.ready)
		}
	}
	switch {
	case strings.Contains(s, "level=ERROR"), strings.Contains(s, "WARNING: DATA RACE"), strings.HasPrefix(s, "panic:"):
		w.nerrors++
		if len(w.errors) < keepErrors {
			w.errors = append(w.errors, s)
		}
	case strings.Contains(s, "level=WARN"):
		w.warnings++
	}
	if len(w.last) == keepLast {
		w.last = w.last[1:]
	}
	w.last = append(w.last, s)
}

// addresses returns the roots of the listeners the start-up line named.
func (w *logWatch) addresses() (url, debug string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.url, w.debug
}

// Log is what the server has logged so far.
type Log struct {
	Warnings int
	// Errors counts the lines at level ERROR, the data races and the
	// panics; FirstErrors holds the first few of them.
	Errors      int
	FirstErrors []string
	// Tail is the last lines, one a line.
	Tail string
}

func (w *logWatch) summary() Log {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Log{
		Warnings:    w.warnings,
		Errors:      w.nerrors,
		FirstErrors: append([]string(nil), w.errors...),
		Tail:        strings.Join(w.last, "\n"),
	}
}

// logField returns the value of key in a log/slog text line, "" if absent.
func logField(line, key string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return v
		}
	}
	return ""
}

// root returns the scheme and host of an http URL, "" for anything else.
func root(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return ""
	}
	return "http://" + u.Host
}
