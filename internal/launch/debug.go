package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/nqueens/configurator/internal/web/server"
)

// Stats reads the server's vital signs from its debug listener; with gc,
// after the server has collected its garbage.
func (p *Process) Stats(ctx context.Context, gc bool) (server.Stats, error) {
	var st server.Stats
	path := "/debug/stats"
	if gc {
		path += "?gc=1"
	}
	err := p.debug(ctx, http.MethodGet, path, 30*time.Second, func(r io.Reader) error {
		return json.NewDecoder(r).Decode(&st)
	})
	return st, err
}

// Recycle asks the server to drop the spaces that grow as they are used
// (its SAT solvers keep the clauses they learn), so that the next requests
// compile them afresh.
func (p *Process) Recycle(ctx context.Context) error {
	return p.debug(ctx, http.MethodPost, "/debug/recycle", 30*time.Second, nil)
}

// HeapProfile writes the server's heap profile, taken after a garbage
// collection, to the file path.
func (p *Process) HeapProfile(ctx context.Context, path string) error {
	return p.debug(ctx, http.MethodGet, "/debug/pprof/heap?gc=1", time.Minute, func(r io.Reader) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, r); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// debug sends a request without a body to the debug listener, bounded by
// timeout, and hands the body of a 200 OK answer to read (nil: discard it).
func (p *Process) debug(ctx context.Context, method, path string, timeout time.Duration, read func(io.Reader) error) error {
	if p.debugURL == "" {
		return errors.New("the server has no debug listener (start it with Options.Debug)")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := p.debugURL + path
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, u, res.Status)
	}
	if read == nil {
		_, err = io.Copy(io.Discard, res.Body)
	} else {
		err = read(res.Body)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u, err)
	}
	return nil
}
