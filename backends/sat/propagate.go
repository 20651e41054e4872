package sat

// Values of a variable in a state.
const (
	open    int8 = 0
	queen   int8 = 1
	noQueen int8 = -1
)

// state is a partial assignment closed under unit propagation of the
// model's lines: a queen empties the rest of each of its lines, and an
// exact line (see board.exact) left with one open cell and no queen gets
// its queen there. Everything a state asserts holds in every solution that extends
// the assignments made to it.
type state struct {
	val    []int8  // per variable
	queens []int32 // per line: variables assigned a queen
	open   []int32 // per line: variables still open
	todo   []int32 // assigned, not yet propagated
}

// root returns the state of the empty placement, or nil when the model has
// no solution by propagation alone.
func (b *board) root() *state {
	st := &state{
		val:    make([]int8, b.nv),
		queens: make([]int32, len(b.Kind)),
		open:   make([]int32, len(b.Kind)),
	}
	for l := range b.Kind {
		st.open[l] = int32(len(b.Line(int32(l))))
	}
	if b.Dead {
		return nil
	}
	for _, v := range b.Units {
		if !b.set(st, v, queen) {
			return nil
		}
	}
	return st
}

func (st *state) clone() *state {
	return &state{
		val:    append([]int8(nil), st.val...),
		queens: append([]int32(nil), st.queens...),
		open:   append([]int32(nil), st.open...),
	}
}

// set assigns x to v and propagates, reporting false on a conflict (no
// solution extends the state; st is then unusable).
func (b *board) set(st *state, v int32, x int8) bool {
	if !b.assign(st, v, x) {
		return false
	}
	for len(st.todo) > 0 {
		u := st.todo[len(st.todo)-1]
		st.todo = st.todo[:len(st.todo)-1]
		for _, l := range b.LinesOf(u) {
			switch {
			case st.val[u] == queen:
				for _, w := range b.Line(l) {
					if st.val[w] == open && !b.assign(st, w, noQueen) {
						return false
					}
				}
			case b.exact[l] && st.queens[l] == 0:
				if st.open[l] == 0 {
					return false
				}
				if st.open[l] == 1 {
					for _, w := range b.Line(l) {
						if st.val[w] == open {
							if !b.assign(st, w, queen) {
								return false
							}
							break
						}
					}
				}
			}
		}
	}
	return true
}

// assign gives v the value x, keeping the line counters exact, and queues
// v for propagation. It reports false when v already has the other value
// or a line gets two queens.
func (b *board) assign(st *state, v int32, x int8) bool {
	if st.val[v] != open {
		if st.val[v] != x {
			st.todo = st.todo[:0]
			return false
		}
		return true
	}
	st.val[v] = x
	ok := true
	for _, l := range b.LinesOf(v) {
		st.open[l]--
		if x == queen {
			st.queens[l]++
			if st.queens[l] > 1 {
				ok = false
			}
		}
	}
	if !ok {
		st.todo = st.todo[:0]
		return false
	}
	st.todo = append(st.todo, v)
	return true
}
