package configurator_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
)

// An explanation whose fewest set to undo the search cannot prove within
// its bounds says so: Room frees the feature, and RoomAtLeast is a true
// lower bound (at most the fewest, which the model's construction knows);
// where it can (a few triangles), the answer is exact.
func TestFeatureExplainAtLeast(t *testing.T) {
	for _, k := range []int{3, 20} {
		src, names := featuretest.Triangles(k)
		sp := featureSpace(t, sat.New(sat.Options{}), src)
		m := sp.FeatureModel()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, err := configurator.NewFeatureSession(ctx, sp, decisions(t, m, "+"+strings.Join(names, ",+")))
		if err != nil {
			t.Fatal(err)
		}
		target, _ := m.ID("T")
		e, err := s.Explain(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		fewest := 2 * k
		switch {
		case k == 3 && (len(e.Room) != fewest || e.RoomAtLeast != 0):
			t.Errorf("%d triangles: room of %d, at least %d; want the %d, exact", k, len(e.Room), e.RoomAtLeast, fewest)
		case k == 20 && (e.RoomAtLeast < 1 || e.RoomAtLeast > fewest || len(e.Room) < fewest):
			t.Errorf("%d triangles: room of %d, at least %d; the fewest has %d, beyond the search's bounds to prove", k, len(e.Room), e.RoomAtLeast, fewest)
		}
		var kept []configurator.Decision
		for _, d := range s.Decisions() {
			if !containsDecision(e.Room, d) {
				kept = append(kept, d)
			}
		}
		freed, err := configurator.NewFeatureSession(ctx, sp, kept)
		if err != nil {
			t.Fatal(err)
		}
		if st := freed.Domains().States[target]; st == configurator.ForcedOff {
			t.Errorf("%d triangles: undoing the room's %d decisions leaves T forced off", k, len(e.Room))
		}
	}
}

func containsDecision(ds []configurator.Decision, d configurator.Decision) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// turnSpy is a real SAT space that records how an explanation takes its
// lane and its turns, and the questions asked meanwhile.
type turnSpy struct {
	configurator.Space
	t configurator.Turner

	mu                sync.Mutex
	watch             bool
	lanes, turns      int
	inLane, holding   int
	questions, inTurn int // questions asked, and asked holding a turn
	outside           int // questions or turns outside the lane
}

func (s *turnSpy) Lane(ctx context.Context) (func(), error) {
	done, err := s.t.Lane(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.lanes++
	s.inLane++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.inLane--
		s.mu.Unlock()
		done()
	}, nil
}

func (s *turnSpy) Turn(ctx context.Context, resumed bool) (context.Context, func(), error) {
	slice, release, err := s.t.Turn(ctx, resumed)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	s.turns++
	s.holding++
	if s.inLane == 0 {
		s.outside++
	}
	s.mu.Unlock()
	return slice, func() {
		s.mu.Lock()
		s.holding--
		s.mu.Unlock()
		release()
	}, nil
}

func (s *turnSpy) Configuration(ctx context.Context, ds []configurator.Decision) ([]bool, error) {
	s.mu.Lock()
	if s.watch {
		s.questions++
		if s.holding > 0 {
			s.inTurn++
		}
		if s.inLane == 0 {
			s.outside++
		}
	}
	s.mu.Unlock()
	return s.Space.Configuration(ctx, ds)
}

// An explanation on a Turner runs in its lane, once, and left at the end;
// its own work takes turns inside the lane; and it never asks the space a
// question while holding a turn (the question takes its own: holding one
// could wait on itself). The model's reasons are many (twenty triangles),
// so that the search tries and prunes sets and makes room in rounds.
func TestFeatureExplainTakesTurns(t *testing.T) {
	src, names := featuretest.Triangles(20)
	sp := featureSpace(t, sat.New(sat.Options{}), src)
	spy := &turnSpy{Space: sp, t: sp.(configurator.Turner)}
	m := sp.FeatureModel()
	ctx, cancel := context.WithTimeout(configurator.WithClient(context.Background(), "a"), time.Minute)
	defer cancel()
	s, err := configurator.NewFeatureSession(ctx, spy, decisions(t, m, "+"+strings.Join(names, ",+")))
	if err != nil {
		t.Fatal(err)
	}
	target, _ := m.ID("T")
	spy.watch = true
	if _, err := s.Explain(ctx, target); err != nil {
		t.Fatal(err)
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if spy.lanes != 1 || spy.inLane != 0 || spy.holding != 0 {
		t.Errorf("lane entered %d times, %d still in it, %d turns still held; want one lane, left, no turn", spy.lanes, spy.inLane, spy.holding)
	}
	if spy.turns == 0 || spy.questions == 0 {
		t.Errorf("%d turns, %d questions; want the search's work in turns between its questions", spy.turns, spy.questions)
	}
	if spy.inTurn != 0 || spy.outside != 0 {
		t.Errorf("%d of %d questions asked holding a turn, %d questions or turns outside the lane", spy.inTurn, spy.questions, spy.outside)
	}
}
