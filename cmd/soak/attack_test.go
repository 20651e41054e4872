package main

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSmallQueriesPass14x14Diagrams checks the lanes of the BDD's work
// space against the real server binary, built without the race detector:
// while eight clients ask for 14×14 diagrams of one queen (each copies the
// diagram restricted to the queen, millions of nodes, taking the work
// space of large queries, and gets its profile, too large to draw), so that the
// work space is saturated and queries wait for it, twenty 8×8 analyses
// from another address are answered about as fast as without the attack,
// not after the diagrams. The server compiles the 14×14 diagram first into
// a cache directory of its own; its deadlines outlast a diagram's copy
// however loaded the machine, so that the attack's requests are answered
// with the diagram's profile, not as too slow.
func TestSmallQueriesPass14x14Diagrams(t *testing.T) {
	needServer(t)
	if testing.Short() {
		t.Skip("compiles a 14×14 diagram: not with -short")
	}
	var log strings.Builder
	r, err := runAttack(context.Background(), attackConfig{
		Server: webBinary, Attack: "diagram14", Attackers: 8, Probes: 20, Every: 50 * time.Millisecond,
		Extra: []string{"-cache-dir", t.TempDir(), "-deadline", "10m", "-diagram-deadline", "10m"}, Log: &limitedWriter{w: &log, n: 1 << 20}, Progress: testWriter{t},
	})
	if err != nil {
		t.Fatalf("%v\nserver log (start):\n%s", err, log.String())
	}
	var sum strings.Builder
	r.summary(&sum)
	t.Log("\n" + sum.String())
	for _, n := range r.Notes {
		if strings.Contains(n, "not saturated") {
			t.Errorf("the attack did not hold the test's premise: %s", n)
		}
	}
	attack := r.Figures["14×14 diagram"]
	if attack == nil || attack.status[http.StatusOK] == 0 {
		t.Fatalf("the 14×14 diagram requests were not answered (their profile, too large to draw): %+v", attack)
	}
	probes := r.Figures["8×8 analyze under attack"]
	if probes == nil || probes.status[http.StatusOK] != 20 {
		t.Fatalf("8×8 analyses under attack: %+v, want 20 answered 200", probes)
	}
	// Queued behind the diagrams, the probes would wait for them, seconds
	// each; admitted at once, they wait at most for a core. The bound is
	// ten times what the same probes took without the attack in this run,
	// so that the machine's load, which slows both, does not decide, and
	// never under 50 ms, a wait for a core on a shared 2-core machine.
	alone := r.Figures["8×8 analyze alone"]
	for _, q := range []float64{0.5, 0.9} {
		got, bound := probes.quantile(q), max(10*alone.quantile(q), 50*time.Millisecond)
		if got >= bound {
			t.Errorf("twenty 8×8 analyses behind the 14×14 diagrams: p%.0f %v, want < %v (ten times the same probes without the attack, at least 50 ms)",
				q*100, got, bound)
		}
	}
}

// TestKnownFlags: an attack's flags that the server binary does not know
// (an older build) are left out, with their values; the others are kept
// in order.
func TestKnownFlags(t *testing.T) {
	needServer(t)
	got := knownFlags(context.Background(), webBinary, []string{"-cache-dir", "off", "-no-such-flag", "1", "-bdd-max-n", "14", "-cache", "1G"})
	if want := []string{"-cache-dir", "off", "-bdd-max-n", "14", "-cache", "1G"}; !slices.Equal(got, want) {
		t.Errorf("knownFlags: %q, want %q", got, want)
	}
}

// TestFindAttack: every attack is found by its name, an unknown name is
// refused with the list.
func TestFindAttack(t *testing.T) {
	for _, a := range slices.Concat(attacks, modelAttacks) {
		if got, err := findAttack(a.name); err != nil || got.name != a.name || got.attackers < 1 || got.run == nil {
			t.Errorf("findAttack(%q): %q, %d attackers, %v", a.name, got.name, got.attackers, err)
		}
	}
	if _, err := findAttack("nuke"); err == nil || !strings.Contains(err.Error(), "diagram14") {
		t.Errorf(`findAttack("nuke"): %v, want an error listing the attacks`, err)
	}
}

// TestAttackTarget: the heavy attack holds the victim's 8×8 p99 under
// 50 ms, and the summary says whether it met it; an attack without a
// target passes whatever its figures.
func TestAttackTarget(t *testing.T) {
	heavy, err := findAttack("heavy")
	if err != nil || heavy.target == nil {
		t.Fatalf("the heavy attack has no target (%v)", err)
	}
	ms := func(ds ...int) *figures {
		f := &figures{status: map[int]int{}}
		for _, d := range ds {
			f.latencies = append(f.latencies, time.Duration(d)*time.Millisecond)
		}
		return f
	}
	victim := heavy.target.Label
	tests := []struct {
		name    string
		figures map[string]*figures
		met     bool
		says    string
	}{
		{"fast", map[string]*figures{victim: ms(1, 2, 3, 40)}, true, "p99 40ms, bound 50ms: met"},
		{"one slow answer", map[string]*figures{victim: ms(1, 2, 3, 60)}, false, "p99 60ms, bound 50ms: MISSED"},
		{"exactly the bound", map[string]*figures{victim: ms(50)}, false, "MISSED"},
		{"no answer", map[string]*figures{"8×8 analyze alone": ms(1)}, false, "MISSED"},
	}
	for _, tt := range tests {
		r := &attackReport{Attack: "heavy", Figures: tt.figures, Target: heavy.target}
		if got := r.passed(); got != tt.met {
			t.Errorf("%s: passed() = %v, want %v", tt.name, got, tt.met)
		}
		var sum strings.Builder
		r.summary(&sum)
		if !strings.Contains(sum.String(), "target: ") || !strings.Contains(sum.String(), tt.says) {
			t.Errorf("%s: the summary does not say %q:\n%s", tt.name, tt.says, sum.String())
		}
	}
	if r := (&attackReport{Attack: "idle", Figures: map[string]*figures{}}); !r.passed() {
		t.Error("an attack without a target did not pass")
	}
}

// TestModelAttackVerdicts: a model attack passes only within the server's
// memory bound, with no failed check, and within its bound of the exit
// after SIGTERM; the summary says each.
func TestModelAttackVerdicts(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    attackReport
		met  bool
		says string
	}{
		{"within", attackReport{MemoryTarget: true, PeakRSS: 100, Bound: 200}, true, "under the server's bound 200 B: met"},
		{"past the bound", attackReport{MemoryTarget: true, PeakRSS: 300, Bound: 200}, false, "under the server's bound 200 B: MISSED"},
		{"no bound known", attackReport{MemoryTarget: true, PeakRSS: 100}, false, "MISSED"},
		{"a failed check", attackReport{Failures: []string{"the victim's model: 404"}}, false, "FAILED: the victim's model: 404"},
		{"a slow exit", attackReport{StopUnder: 5 * time.Second, StopTook: 31 * time.Second}, false, "exit 31s after SIGTERM, bound 5s: MISSED"},
		{"a quick exit", attackReport{StopUnder: 5 * time.Second, StopTook: time.Second}, true, "exit 1s after SIGTERM, bound 5s: met"},
	} {
		tt.r.Figures = map[string]*figures{}
		if got := tt.r.passed(); got != tt.met {
			t.Errorf("%s: passed() = %v, want %v", tt.name, got, tt.met)
		}
		var sum strings.Builder
		tt.r.summary(&sum)
		if !strings.Contains(sum.String(), tt.says) {
			t.Errorf("%s: the summary does not say %q:\n%s", tt.name, tt.says, sum.String())
		}
	}
}

// TestModelAttacks runs two of the attacks on the store of models against
// the real server binary: a FIFO in models/ is answered and the server
// exits at once on SIGTERM; a flood of CNF headers of a million variables
// leaves another client's small uploads answered within 2 s, all within
// the server's memory bound.
func TestModelAttacks(t *testing.T) {
	needServer(t)
	for _, name := range []string{"model-fifo", "model-header"} {
		r, err := runAttack(context.Background(), attackConfig{Server: webBinary, Attack: name, Duration: 3 * time.Second, Progress: testWriter{t}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var sum strings.Builder
		r.summary(&sum)
		t.Log("\n" + sum.String())
		if !r.passed() {
			t.Errorf("%s did not pass", name)
		}
	}
}
