package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The attacks on the store of feature models (internal/web/models), each
// against -memory 3G, each held to the server's own memory bound. They
// are the attacks of `soak -attack models`, one after the other.

// modelAttackArgs are the server flags of every model attack.
var modelAttackArgs = []string{"-memory", "3G"}

// smallUploadTarget holds a small upload from another client to 2 s.
var smallUploadTarget = &latencyTarget{Label: "small upload (victim)", Quantile: 1, Under: 2 * time.Second,
	About: "a small upload from another client answers within 2 s"}

// modelAttacks are the attacks on the store of models.
var modelAttacks = []attack{
	{name: "model-tiny", attackers: 8, args: modelAttackArgs, memoryTarget: true,
		about: "450 uploads of a tiny CNF file of 50,000 features (`p cnf 50000 0`, each another by a comment) from eight addresses; the figure is the peak memory",
		run:   tinyModels},
	{name: "model-bodies", attackers: 150, args: modelAttackArgs, memoryTarget: true, target: smallUploadTarget,
		about: "150 uploads of 16 MiB at once, each from an address of its own, while the victim uploads small models",
		run:   bigBodies},
	{name: "model-evict", attackers: 6, args: modelAttackArgs, memoryTarget: true, cacheDir: true,
		about: "the victim uploads a model and uses it; six addresses then upload files of 12 MB as fast as they are taken; the victim's model must still answer",
		run:   evictOthers},
	{name: "model-header", attackers: 6, args: modelAttackArgs, memoryTarget: true, target: smallUploadTarget,
		about: "six addresses upload `p cnf 1048576 0` (16 bytes, a million variables) in a loop while the victim uploads small models",
		run:   headerFlood},
	{name: "model-compiles", attackers: 2, args: modelAttackArgs, memoryTarget: true, target: smallUploadTarget,
		about: "two addresses each compile a hard random 3-CNF model on the BDD while the victim uploads small models",
		run:   hardCompiles},
	{name: "model-explain", attackers: 8, args: modelAttackArgs, memoryTarget: true,
		about: "eight addresses ask why a feature is forced that sixty of a hundred and twenty decisions force (Make room undoes sixty) while the victim asks 8×8 analyses",
		run:   explainBombs,
		target: &latencyTarget{Label: "8×8 analyze under attack", Quantile: 0.99, Under: 50 * time.Millisecond,
			About: "8×8 analyses from another client keep p99 < 50 ms during eight explanation bombs"}},
	{name: "model-fifo", attackers: 1, args: modelAttackArgs, memoryTarget: true, cacheDir: true, stopUnder: 5 * time.Second,
		about: "a FIFO put in models/ of the cache directory as a model's file; the victim asks for that model, then the server is sent SIGTERM",
		run:   fifoModel},
}

// upload posts a model's file from c, recording the answer under label.
func (a *attackRun) upload(ctx context.Context, c *http.Client, label, name string, body io.Reader, size int64) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.p.URL()+"/api/v1/models?name="+name, body)
	if err != nil {
		return 0, err.Error()
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")
	return a.send(ctx, c, label, req)
}

// fail records a check the attack does not pass.
func (a *attackRun) fail(format string, args ...any) {
	a.mu.Lock()
	a.failures = append(a.failures, fmt.Sprintf(format, args...))
	a.mu.Unlock()
}

// modelID reads the model's ID from an upload's answer.
func modelID(body string) string {
	var m struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal([]byte(body), &m)
	return m.Model
}

// victimUploads is how many models the victim uploads from one address,
// well within an address's quota of new models.
const victimUploads = 50

// smallUploads is the victim of the model attacks: a small model of its
// own, another each time, uploaded every cfg.Every for the attack's
// duration (or Probes times), from addresses of its own (another every
// victimUploads, past the attackers'). An answer other than 201 is a
// failure.
func (a *attackRun) smallUploads(ctx context.Context) {
	var c *http.Client
	end := time.Now().Add(a.cfg.Duration)
	for i := 0; ctx.Err() == nil; i++ {
		if a.cfg.Probes > 0 && i >= a.cfg.Probes || a.cfg.Probes == 0 && time.Now().After(end) {
			break
		}
		if i%victimUploads == 0 {
			if c != nil {
				c.CloseIdleConnections()
			}
			c = client(a.cfg.Attackers+1+i/victimUploads, time.Minute)
		}
		src := fmt.Sprintf("features\n\tVictim%d\n\t\toptional\n\t\t\tA\n\t\t\tB\n", i)
		if status, body := a.upload(ctx, c, "small upload (victim)", "victim.uvl", strings.NewReader(src), int64(len(src))); status != http.StatusCreated && ctx.Err() == nil {
			a.fail("a small upload from another client: %d %.200s", status, body)
		}
		select {
		case <-ctx.Done():
		case <-time.After(a.cfg.Every):
		}
	}
	if c != nil {
		c.CloseIdleConnections()
	}
}

// each runs one(i) for attackers 1..k at once and waits for them.
func (a *attackRun) each(k int, one func(i int, c *http.Client)) {
	var wg sync.WaitGroup
	for i := 1; i <= k; i++ {
		wg.Go(func() {
			c := client(i, 5*time.Minute)
			defer c.CloseIdleConnections()
			one(i, c)
		})
	}
	wg.Wait()
}

// tinyModels uploads 450 CNF headers of 50,000 variables from the
// attackers' addresses, then the victim's small model: the store charges
// each what its features hold, and holds a few.
func tinyModels(ctx context.Context, a *attackRun) error {
	const total = 450
	k := a.cfg.Attackers
	a.each(k, func(i int, c *http.Client) {
		for j := i - 1; j < total && ctx.Err() == nil; j += k {
			src := fmt.Sprintf("c %d\np cnf 50000 0\n", j)
			a.upload(ctx, c, "tiny CNF of 50,000 features", "tiny.cnf", strings.NewReader(src), int64(len(src)))
		}
	})
	a.cfg.Probes = 10
	a.smallUploads(ctx)
	return nil
}

// repeated reads its byte over and over.
type repeated byte

func (r repeated) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// bigBodies sends 16 MiB from each attacker at once (a comment line: a
// file that reads after all its bytes are received), while the victim
// uploads small models.
func bigBodies(ctx context.Context, a *attackRun) error {
	const size = 16 << 20
	var wg sync.WaitGroup
	wg.Go(func() {
		a.each(a.cfg.Attackers, func(i int, c *http.Client) {
			body := io.MultiReader(strings.NewReader("//"), io.LimitReader(repeated('x'), size-2))
			a.upload(ctx, c, "16 MiB upload", "big.uvl", body, size)
		})
	})
	time.Sleep(500 * time.Millisecond)
	a.smallUploads(ctx)
	wg.Wait()
	return nil
}

// bigModel is a valid UVL model of about 12 MB: 49,000 optional features
// of names of 250 bytes, under a root named for seed.
func bigModel(seed int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "features\n\tRoot%d\n\t\toptional\n", seed)
	pad := strings.Repeat("f", 240)
	for j := range 49000 {
		fmt.Fprintf(&b, "\t\t\t%s%09d\n", pad, j)
	}
	return []byte(b.String())
}

// evictOthers has the victim upload and use a model, then the attackers
// upload 12 MB models until their quotas refuse them: the directory's
// room comes from the attackers' own models, never the victim's, which
// answers after.
func evictOthers(ctx context.Context, a *attackRun) error {
	c := client(0, time.Minute)
	defer c.CloseIdleConnections()
	src := "features\n\tShared\n\t\toptional\n\t\t\tA\n\t\t\tB\n"
	status, body := a.upload(ctx, c, "the victim's model, uploaded", "shared.uvl", strings.NewReader(src), int64(len(src)))
	id := modelID(body)
	if status != http.StatusCreated || id == "" {
		return fmt.Errorf("the victim's upload: %d %s", status, body)
	}
	use := `{"model":"` + id + `","backend":"sat"}`
	a.do(ctx, c, "the victim's model, used", http.MethodPost, "/api/v1/analyze", use)
	a.each(a.cfg.Attackers, func(i int, c *http.Client) {
		for j := 0; j < 17 && ctx.Err() == nil; j++ {
			src := bigModel(1000*i + j)
			status, _ := a.upload(ctx, c, "12 MB upload", "big.uvl", strings.NewReader(string(src)), int64(len(src)))
			if status == http.StatusTooManyRequests {
				return
			}
		}
	})
	if status, body := a.do(ctx, c, "the victim's model after the uploads", http.MethodPost, "/api/v1/analyze", use); status != http.StatusOK {
		a.fail("the victim's model after the attackers' uploads: %d %.200s", status, body)
	}
	return nil
}

// headerFlood uploads a CNF header of a million variables from each
// attacker in a loop, while the victim uploads small models.
func headerFlood(ctx context.Context, a *attackRun) error {
	stop := a.attackers(ctx, a.cfg.Attackers, func(ctx context.Context, c *http.Client, i int) {
		src := "p cnf 1048576 0\n"
		a.upload(ctx, c, "CNF header of a million variables", "header.cnf", strings.NewReader(src), int64(len(src)))
	})
	time.Sleep(time.Second)
	a.smallUploads(ctx)
	stop()
	return nil
}

// hardCNF is a random 3-CNF of 200 variables and 850 clauses (near the
// threshold of satisfiability: hard for a decision diagram), of seed.
func hardCNF(seed int) string {
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	var b strings.Builder
	const vars, clauses = 200, 850
	fmt.Fprintf(&b, "p cnf %d %d\n", vars, clauses)
	for range clauses {
		for range 3 {
			v := 1 + rng.IntN(vars)
			if rng.IntN(2) == 0 {
				v = -v
			}
			fmt.Fprintf(&b, "%d ", v)
		}
		b.WriteString("0\n")
	}
	return b.String()
}

// hardCompiles has each attacker upload a hard model and ask for it on
// the BDD (a compile of minutes), while the victim uploads small models.
func hardCompiles(ctx context.Context, a *attackRun) error {
	actx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		a.each(a.cfg.Attackers, func(i int, c *http.Client) {
			src := hardCNF(i)
			_, body := a.upload(actx, c, "hard model, uploaded", "hard.cnf", strings.NewReader(src), int64(len(src)))
			id := modelID(body)
			for actx.Err() == nil {
				a.do(actx, c, "hard model on the BDD", http.MethodPost, "/api/v1/analyze", `{"model":"`+id+`","backend":"bdd"}`)
			}
		})
	})
	time.Sleep(2 * time.Second)
	a.smallUploads(ctx)
	cancel()
	wg.Wait()
	return nil
}

// explainModel is a model in which each of sixty pairs of selections
// forces T off, and the decisions that select all of them.
func explainModel() (src string, selected []string) {
	var b strings.Builder
	b.WriteString("features\n\tRoot\n\t\toptional\n\t\t\tT\n")
	for i := range 60 {
		fmt.Fprintf(&b, "\t\t\tA%d\n\t\t\tB%d\n", i, i)
	}
	b.WriteString("constraints\n")
	for i := range 60 {
		fmt.Fprintf(&b, "\tA%d & B%d => !T\n", i, i)
		selected = append(selected, fmt.Sprintf("A%d", i), fmt.Sprintf("B%d", i))
	}
	return b.String(), selected
}

// explainBombs has eight attackers ask why T is forced off under all 120
// decisions, over and over, while the victim asks 8×8 analyses.
func explainBombs(ctx context.Context, a *attackRun) error {
	if err := a.prepare(ctx, queensBody("bdd", 8, "", nil)); err != nil {
		return err
	}
	src, sel := explainModel()
	c := client(0, time.Minute)
	status, body := a.upload(ctx, c, "the explained model, uploaded", "bomb.uvl", strings.NewReader(src), int64(len(src)))
	c.CloseIdleConnections()
	id := modelID(body)
	if id == "" {
		return fmt.Errorf("uploading the explained model: %d %s", status, body)
	}
	selJSON, _ := json.Marshal(sel)
	bomb := fmt.Sprintf(`{"model":%q,"backend":"sat","select":%s,"feature":"T"}`, id, selJSON)
	a.victim(ctx, "8×8 analyze alone", placements8)
	stop := a.attackers(ctx, a.cfg.Attackers, func(ctx context.Context, c *http.Client, i int) {
		a.do(ctx, c, "explanation bomb", http.MethodPost, "/api/v1/explain", bomb)
	})
	time.Sleep(time.Second)
	a.victim(ctx, "8×8 analyze under attack", placements8)
	stop()
	// The bomb's answer is still right: undo one of each pair, sixty
	// decisions, known to be the fewest.
	c = client(0, time.Minute)
	defer c.CloseIdleConnections()
	status, body = a.do(ctx, c, "explanation after the bombs", http.MethodPost, "/api/v1/explain", bomb)
	var e struct {
		MakeRoom *struct {
			Select []string `json:"select"`
		} `json:"make_room"`
		AtLeast int `json:"make_room_at_least"`
	}
	if err := json.Unmarshal([]byte(body), &e); status != http.StatusOK || err != nil || e.MakeRoom == nil || len(e.MakeRoom.Select) != len(sel)/2 || e.AtLeast != 0 {
		a.fail("the explanation after the bombs: %d, want make room of %d decisions, exact: %.300s", status, len(sel)/2, body)
	}
	return nil
}

// fifoModel puts a FIFO in models/ as a model's file and asks for the
// model: the answer must come within the request's deadline (the store
// refuses the FIFO at once), and the server must exit on SIGTERM within
// the attack's bound (runAttack times it).
func fifoModel(ctx context.Context, a *attackRun) error {
	id := strings.Repeat("0f", 12)
	dir := filepath.Join(a.dir, "models")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := syscall.Mkfifo(filepath.Join(dir, id+".uvl"), 0o644); err != nil {
		return fmt.Errorf("a FIFO in %s: %w", dir, err)
	}
	c := client(0, time.Minute)
	defer c.CloseIdleConnections()
	for range 5 {
		status, body := a.do(ctx, c, "the model whose file is a FIFO", http.MethodPost, "/api/v1/analyze", `{"model":"`+id+`","backend":"sat"}`)
		if status == 0 {
			a.fail("the model whose file is a FIFO: no answer (%s)", body)
		}
	}
	return nil
}
