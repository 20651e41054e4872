package satbase

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crillab/gophersat/solver"
)

// The tests of this file are those of the patches to gophersat (see
// third_party/gophersat/PATCHES.md): an interrupt, parallel solvers, the
// learned clauses' memory.

// pigeonhole returns the CNF of p pigeons in h holes, each pigeon in some
// hole and no two in one: unsatisfiable when p > h, and hard for clause
// learning, whose refutations of it grow exponentially with p: from ten
// pigeons on, gophersat takes far longer than any test waits.
func pigeonhole(p, h int) *solver.Problem {
	v := func(i, j int) int { return i*h + j + 1 }
	var cnf [][]int
	for i := range p {
		var c []int
		for j := range h {
			c = append(c, v(i, j))
		}
		cnf = append(cnf, c)
	}
	for j := range h {
		for a := range p {
			for b := a + 1; b < p; b++ {
				cnf = append(cnf, []int{-v(a, j), -v(b, j)})
			}
		}
	}
	return solver.ParseSlice(cnf)
}

// queensCNF returns the pairwise CNF of n-queens, a clause "not both" for
// every two cells that attack each other and "at least one" per rank.
func queensCNF(n int) [][]int {
	v := func(r, c int) int { return r*n + c + 1 }
	var cnf [][]int
	for r := range n {
		var rank []int
		for c := range n {
			rank = append(rank, v(r, c))
		}
		cnf = append(cnf, rank)
	}
	for a := range n * n {
		for b := a + 1; b < n*n; b++ {
			ra, ca, rb, cb := a/n, a%n, b/n, b%n
			if ra == rb || ca == cb || ra-ca == rb-cb || ra+ca == rb+cb {
				cnf = append(cnf, []int{-(a + 1), -(b + 1)})
			}
		}
	}
	return cnf
}

// TestInterrupt: a Solve on 11 pigeons in 10 holes, which gophersat does
// not finish in minutes, stops within 200 ms of its deadline or of an
// Interrupt from another goroutine, with Indet, and the solver answers its next question. On a loaded machine one
// try may be descheduled past the bound: the best of three counts.
func TestInterrupt(t *testing.T) {
	const (
		deadline = 150 * time.Millisecond
		bound    = 200 * time.Millisecond
		tries    = 3
	)
	for _, tc := range []struct {
		name string
		stop func(s *solver.Solver) solver.Status
	}{
		{"SolveContext past its deadline", func(s *solver.Solver) solver.Status {
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			return s.SolveContext(ctx)
		}},
		{"Interrupt from another goroutine", func(s *solver.Solver) solver.Status {
			timer := time.AfterFunc(deadline, s.Interrupt)
			defer timer.Stop()
			return s.Solve()
		}},
		{"tally.solve past its deadline", func(s *solver.Solver) solver.Status {
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			var c tally
			ok, err := c.solve(ctx, s)
			if !errors.Is(err, context.DeadlineExceeded) || ok || c.calls != 1 || c.conflicts == 0 {
				t.Errorf("tally.solve = %v, %v, %+v; want false, DeadlineExceeded, one call with conflicts", ok, err, c)
			}
			return solver.Indet
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			best := time.Hour
			for range tries {
				s := solver.New(pigeonhole(11, 10))
				start := time.Now()
				done := make(chan solver.Status, 1)
				go func() { done <- tc.stop(s) }()
				var status solver.Status
				select {
				case status = <-done:
				case <-time.After(deadline + 10*time.Second):
					t.Fatal("the Solve did not stop")
				}
				best = min(best, time.Since(start)-deadline)
				if status != solver.Indet {
					t.Fatalf("status %v, want Indet", status)
				}
				// The solver is left as a restart leaves it: a question it
				// can answer at once is answered.
				if got := s.Assume([]solver.Lit{solver.IntToLit(1), solver.IntToLit(11)}); got != solver.Unsat {
					t.Errorf("after the interrupt, pigeons 1 and 2 in hole 1: %v, want Unsat", got)
				}
				if best <= bound {
					break
				}
			}
			if best > bound {
				t.Errorf("stopped %v after the deadline at best of %d tries, want within %v", best, tries, bound)
			}
			t.Logf("stopped %v after the deadline", best)
		})
	}
}

// TestInterruptedAnswers: a solver interrupted again and again, at
// moments of the search that chance picks, still answers every question
// right, under assumptions that change from question to question: an
// interrupt leaves nothing behind that later learning could build a false
// clause on. Each question is asked with a first interrupt after a few
// microseconds and, each time it is interrupted, asked again with twice the
// time; an Unsat answer is checked against a fresh solver (a Sat answer
// comes with its model, which the backends verify).
func TestInterruptedAnswers(t *testing.T) {
	const (
		n          = 10
		questions  = 3000
		interrupts = 1000 // enough to meet every kind of moment many times
	)
	cnf := queensCNF(n)
	s := solver.New(solver.ParseSlice(cnf))
	rng := rand.New(rand.NewPCG(1, 2))
	stopped := 0
	for i := 0; i < questions && stopped < interrupts; i++ {
		lits := []solver.Lit{solver.IntToLit(int32(rng.IntN(n*n) + 1)), solver.IntToLit(int32(rng.IntN(n*n) + 1))}
		var got solver.Status
		for tries := 0; ; tries++ {
			if got = s.Assume(lits); got == solver.Unsat {
				break
			}
			timer := time.AfterFunc(time.Duration(1+rng.IntN(10))*time.Microsecond<<tries, s.Interrupt)
			got = s.Solve()
			timer.Stop()
			if got != solver.Indet {
				break
			}
			stopped++
		}
		if got != solver.Unsat {
			continue
		}
		fresh := solver.New(solver.ParseSlice(cnf))
		if want := fresh.Assume(lits); want != solver.Unsat && fresh.Solve() != solver.Unsat {
			t.Fatalf("question %d (queens on %d and %d), after %d interrupts: Unsat, but a fresh solver finds a solution", i, lits[0].Int(), lits[1].Int(), stopped)
		}
	}
	t.Logf("%d interrupts", stopped)
}

// TestInterruptBeforeSolve: an Interrupt with no Solve in progress stops
// the next one at once, and only that one.
func TestInterruptBeforeSolve(t *testing.T) {
	s := solver.New(pigeonhole(7, 6))
	s.Interrupt()
	if got := s.Solve(); got != solver.Indet {
		t.Fatalf("the Solve after an Interrupt: %v, want Indet", got)
	}
	if got := s.Solve(); got != solver.Unsat {
		t.Fatalf("the Solve after that: %v, want Unsat", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := solver.New(pigeonhole(7, 6)).SolveContext(ctx); got != solver.Indet {
		t.Fatalf("SolveContext with an ended context: %v, want Indet", got)
	}
}

// TestParallelSolvers: separate solvers run at once in several goroutines
// (run with -race: gophersat v1.4.0 shared a buffer among all solvers, and
// raced), and each gets its own right answers: 7 pigeons do not fit in 6
// holes, and 8-queens has 92 solutions, counted with blocking clauses.
func TestParallelSolvers(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for range 3 {
				if got := solver.New(pigeonhole(7, 6)).Solve(); got != solver.Unsat {
					t.Errorf("goroutine %d: 7 pigeons in 6 holes: %v, want Unsat", g, got)
				}
			}
			s := solver.New(solver.ParseSlice(queensCNF(8)))
			count := 0
			for s.Solve() == solver.Sat {
				count++
				model := s.Model()
				var block []solver.Lit
				for v, q := range model {
					if q {
						block = append(block, solver.IntToLit(int32(-(v + 1))))
					}
				}
				s.AppendClause(solver.NewClause(block))
			}
			if count != 92 {
				t.Errorf("goroutine %d: %d solutions of 8-queens, want 92", g, count)
			}
		})
	}
	wg.Wait()
}

// TestLearnedBytes: a fresh solver holds no learned clause; one that has
// refuted 8 pigeons in 7 holes holds some, a few bytes each at least.
func TestLearnedBytes(t *testing.T) {
	s := solver.New(pigeonhole(8, 7))
	if got := s.LearnedBytes(); got != 0 {
		t.Errorf("a fresh solver: %d bytes learned, want 0", got)
	}
	if s.Solve() != solver.Unsat {
		t.Fatal("8 pigeons fit in 7 holes")
	}
	kept := s.Stats.NbLearned - s.Stats.NbDeleted
	if got := s.LearnedBytes(); kept <= 0 || got < int64(kept)*(80+8) {
		t.Errorf("after refuting: %d bytes for %d learned clauses kept, want at least 88 each", got, kept)
	}
}

// TestContradictoryAssumptions: assumptions holding a literal and its
// negation are refuted at once, whether the variable is in a clause or in
// none, in either order, and the solver answers its next question (v1.4.0
// bound the variable to the last of the two and answered Sat).
func TestContradictoryAssumptions(t *testing.T) {
	s := solver.New(solver.ParseSliceNb([][]int{{1, 2}, {-1, 3}}, 4))
	lit := func(l int32) solver.Lit { return solver.IntToLit(l) }
	for _, lits := range [][]solver.Lit{
		{lit(1), lit(-1)},
		{lit(-1), lit(1)},
		{lit(4), lit(2), lit(-4)},
		{lit(2), lit(3), lit(-2)},
	} {
		if got := s.Assume(lits); got != solver.Unsat {
			t.Errorf("Assume(%v) = %v, want Unsat", lits, got)
		}
		if got := s.Solve(); got != solver.Unsat {
			t.Errorf("Solve under %v = %v, want Unsat", lits, got)
		}
		if got := s.Assume([]solver.Lit{lit(1), lit(1)}); got == solver.Unsat || s.Solve() != solver.Sat || !s.Model()[0] || !s.Model()[2] {
			t.Fatalf("after %v: a literal assumed twice is not a contradiction: got %v, model %v", lits, got, s.Model())
		}
	}
}

// TestPrefer: the model found follows the phases preferred, on a formula
// that leaves every variable free, and a preference never makes a
// satisfiable question unsatisfiable nor an unsatisfiable one satisfiable.
func TestPrefer(t *testing.T) {
	const n = 20
	var cnf [][]int
	for v := 1; v < n; v += 2 {
		cnf = append(cnf, []int{v, v + 1, -v}) // always true: every variable free
	}
	s := solver.New(solver.ParseSliceNb(cnf, n))
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		var prefer []solver.Lit
		want := make([]bool, n)
		for v := range n {
			want[v] = rng.IntN(2) == 0
			l := int32(v + 1)
			if !want[v] {
				l = -l
			}
			prefer = append(prefer, solver.IntToLit(l))
		}
		s.Assume(nil)
		s.Prefer(prefer)
		if s.Solve() != solver.Sat || !slices.Equal(s.Model(), want) {
			t.Fatalf("preferring %v: model %v", want, s.Model())
		}
	}
	q := solver.New(pigeonhole(5, 4))
	q.Prefer([]solver.Lit{solver.IntToLit(1), solver.IntToLit(-2)})
	if q.Solve() != solver.Unsat {
		t.Error("5 pigeons in 4 holes, with preferences: not Unsat")
	}
	cnf8 := queensCNF(8)
	r := solver.New(solver.ParseSlice(cnf8))
	r.Assume([]solver.Lit{solver.IntToLit(1)})
	r.Prefer([]solver.Lit{solver.IntToLit(2), solver.IntToLit(10)}) // attacked by the queen on 1
	if r.Solve() != solver.Sat {
		t.Error("8-queens with a queen on a1, with preferences against it: not Sat")
	}
}
