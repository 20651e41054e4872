package bdd

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math/big"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// The answers a space keeps in its memo (the analyses of the empty board
// and of the boards of one and two queens, and the heat maps of the empty
// board and of the boards of one queen) take seconds to add up by a search
// of the board's solutions (see tally.go), and minutes of a core to sweep
// where that search does not serve, so the memo saves them beside the
// space's compiled file and Compile reads them back: a space loaded again starts
// with every one of them. They depend on the model alone, not on
// the file of the diagram, and are refused like that file when they are
// not sound. All integers are little-endian:
//
//	offset 0   magic     8 bytes "NQANSWR\n"
//	       8   version   uint32, answersVersion
//	      12   n         uint32, the board size
//	      16   order     uint32, the configurator.Order
//	      20   model     32 bytes, SHA-256 of the model (modelDigest)
//	      52   entries   uint32, then each entry:
//	                       kind   uint8: kindOne, kindPair or kindHeat
//	                       key    uint32: the entry's key in memo.ones, pairs or heat
//	           an analysis (kindOne, kindPair):
//	                       k      uint8: bytes of the solution count, 0 if the board has none
//	                       count  k bytes, big-endian
//	                       cells  n² bytes, each cell's configurator.State (if k > 0)
//	           a heat map (kindHeat):
//	                       some   uint8: 1, or 0 if the board has no solution
//	                       cells  n² counts (if some), each a uint8 length k and k bytes big-endian
//	   end     CRC       uint32, CRC-32C of the bytes before it
//
// and nothing after it. Entries are sorted by kind and key, so the same
// answers make the same file.
const (
	answersMagic   = "NQANSWR\n"
	answersVersion = 1
	answersFixed   = 56 // bytes before the first entry
	answersSuffix  = ".answers"
)

// The kinds of entries of an answers file.
const (
	kindOne  = iota // a board of none or one queen: memo.ones' key
	kindPair        // a board of two queens: memo.pairs' key
	kindHeat        // the heat map of a board of none or one queen: memo.heat's key
)

// errAnswersFormat reports an answers file that is not sound.
var errAnswersFormat = errors.New("not a sound answers file")

// answer is one entry of an answers file: an analysis or a heat map as
// the memo keeps it, nil when the board has no solution.
type answer struct {
	kind, key int
	an        *configurator.Analysis
	heat      []*big.Int
}

// byKind lists the memo's maps of answers by the kind of their entries in
// a file.
func (m *memo) byKind() [3]*sync.Map {
	return [...]*sync.Map{kindOne: &m.ones, kindPair: &m.pairs, kindHeat: &m.heat}
}

// answersPath is the file of model's kept answers, beside its space's.
func (s store) answersPath(model *configurator.Model) string {
	return strings.TrimSuffix(s.path(model), ".bdd") + answersSuffix
}

// read restores the answers the store holds for the memo's model, if a
// sound file of them is there; one that is not is logged and removed. It
// runs before the space is shared.
func (m *memo) read() {
	if m.store.dir == "" {
		return
	}
	path := m.store.answersPath(m.model)
	start := time.Now()
	data, err := readBounded(path, m.maxAnswersBytes())
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var answers []answer
	if err == nil {
		answers, err = decodeAnswers(data, m.model, m.maxAnswers())
	}
	if err != nil && !refused(err) {
		// Trouble reading the file is no reason to remove it.
		m.store.log.Warn("kept answers not readable; they are computed again", "n", m.model.N(), "order", m.model.Order(), "file", path, "err", err)
		return
	}
	if err != nil {
		m.store.log.Warn("kept answers refused; removing them, they are computed again", "n", m.model.N(), "order", m.model.Order(), "file", path, "err", err)
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			m.store.log.Warn("kept answers not removed", "file", path, "err", err)
		}
		return
	}
	for _, a := range answers {
		var e any = configurator.ErrNoSolution
		switch {
		case a.an != nil:
			a.an.Work.Nodes = int64(m.nodes)
			e = a.an
		case a.heat != nil:
			e = a.heat
		}
		m.byKind()[a.kind].Store(a.key, e)
		if a.kind == kindPair {
			m.pairCount.Add(1)
		}
	}
	m.saved.Store(int64(len(answers)))
	m.store.log.Info("kept answers loaded from disk", "n", m.model.N(), "order", m.model.Order(),
		"answers", len(answers), "bytes", len(data), "file", path, "took", time.Since(start).Round(10*time.Microsecond))
}

// write saves every answer the memo keeps to the store, in place of an
// earlier file of them. Trouble is logged, never returned: the answers in
// memory are sound either way.
func (m *memo) write() {
	if m.store.dir == "" {
		return
	}
	var answers []answer
	for kind, entries := range m.byKind() {
		entries.Range(func(k, e any) bool {
			an, _ := e.(*configurator.Analysis)
			heat, _ := e.([]*big.Int)
			answers = append(answers, answer{kind: kind, key: k.(int), an: an, heat: heat})
			return true
		})
	}
	path := m.store.answersPath(m.model)
	start := time.Now()
	data := encodeAnswers(answers, m.model)
	if _, err := m.store.write(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		m.store.log.Warn("kept answers not saved", "n", m.model.N(), "order", m.model.Order(), "file", path, "err", err)
		return
	}
	m.saved.Store(int64(len(answers)))
	m.store.log.Info("kept answers saved to disk", "n", m.model.N(), "order", m.model.Order(),
		"answers", len(answers), "bytes", len(data), "file", path, "took", time.Since(start).Round(10*time.Microsecond))
}

// maxAnswers is the most entries a file of the memo's answers holds: the
// empty board and a board per variable, with their heat maps, and the
// pairs.
func (m *memo) maxAnswers() int { return 2*(1+m.model.Vars()) + maxPairs }

// maxAnswersBytes bounds the size of a sound answers file of the memo.
func (m *memo) maxAnswersBytes() int64 {
	analysis := 6 + maxCountLen + m.model.Vars()
	heat := 6 + (1+maxCountLen)*m.model.Vars()
	return int64(answersFixed + (1+m.model.Vars())*heat + (1+m.model.Vars()+maxPairs)*analysis + 4)
}

// readBounded reads the file at path whole if it holds at most limit
// bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("more than %d bytes: %w", limit, errAnswersFormat)
	}
	return data, nil
}

// encodeAnswers is the answers file of model holding answers.
func encodeAnswers(answers []answer, model *configurator.Model) []byte {
	slices.SortFunc(answers, func(a, b answer) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.key, b.key))
	})
	b := []byte(answersMagic)
	b = binary.LittleEndian.AppendUint32(b, answersVersion)
	b = appendModelKey(b, model)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(answers)))
	for _, a := range answers {
		b = append(b, byte(a.kind))
		b = binary.LittleEndian.AppendUint32(b, uint32(a.key))
		if a.kind == kindHeat {
			if a.heat == nil {
				b = append(b, 0)
				continue
			}
			b = append(b, 1)
			for _, x := range a.heat {
				c := x.Bytes()
				b = append(b, byte(len(c)))
				b = append(b, c...)
			}
			continue
		}
		if a.an == nil {
			b = append(b, 0)
			continue
		}
		count := a.an.Solutions.Bytes()
		b = append(b, byte(len(count)))
		b = append(b, count...)
		for _, st := range a.an.Cells {
			b = append(b, byte(st))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeAnswers reads an answers file of model and checks it whole:
// checksum, model, every entry's key and cells, and the end of the file. At
// most limit entries are accepted.
func decodeAnswers(data []byte, model *configurator.Model, limit int) ([]answer, error) {
	if len(data) < answersFixed+4 {
		return nil, fmt.Errorf("%d bytes: cut short: %w", len(data), errAnswersFormat)
	}
	end := len(data) - 4
	if crc32.Checksum(data[:end], castagnoli) != binary.LittleEndian.Uint32(data[end:]) {
		return nil, fmt.Errorf("checksum: %w", errAnswersFormat)
	}
	if string(data[:8]) != answersMagic {
		return nil, fmt.Errorf("magic %q: %w", data[:8], errAnswersFormat)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != answersVersion {
		return nil, fmt.Errorf("version %d, want %d: %w", v, answersVersion, errAnswersFormat)
	}
	if err := checkModelKey(data[12:12+modelKeyLen], model); err != nil {
		return nil, err
	}
	count := int(binary.LittleEndian.Uint32(data[52:]))
	if count > limit {
		return nil, fmt.Errorf("%d entries, at most %d: %w", count, limit, errAnswersFormat)
	}
	r := data[answersFixed:end]
	answers := make([]answer, 0, count)
	for i := range count {
		if len(r) < 6 {
			return nil, fmt.Errorf("entry %d cut short: %w", i, errAnswersFormat)
		}
		a := answer{kind: int(r[0]), key: int(binary.LittleEndian.Uint32(r[1:]))}
		k := int(r[5])
		r = r[6:]
		queens, err := keyQueens(a, model)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if i > 0 {
			if p := answers[i-1]; cmp.Or(cmp.Compare(p.kind, a.kind), cmp.Compare(p.key, a.key)) >= 0 {
				return nil, fmt.Errorf("entry %d out of order: %w", i, errAnswersFormat)
			}
		}
		switch {
		case a.kind == kindHeat && k == 1:
			a.heat, r, err = decodeHeat(r, queens, model)
		case a.kind == kindHeat && k != 0:
			err = fmt.Errorf("heat map flag %d: %w", k, errAnswersFormat)
		case k > 0:
			a.an, r, err = decodeAnalysis(r, k, queens, model)
		}
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		answers = append(answers, a)
	}
	if len(r) != 0 {
		return nil, fmt.Errorf("%d bytes after the last entry: %w", len(r), errAnswersFormat)
	}
	return answers, nil
}

// decodeAnalysis reads the analysis of an entry whose count takes k bytes
// from the front of r, and returns the rest of r.
func decodeAnalysis(r []byte, k int, queens []configurator.Cell, model *configurator.Model) (*configurator.Analysis, []byte, error) {
	vars := model.Vars()
	if k > maxCountLen || len(r) < k+vars {
		return nil, nil, fmt.Errorf("cut short: %w", errAnswersFormat)
	}
	an := &configurator.Analysis{N: model.N(), Cells: make([]configurator.State, vars), Solutions: new(big.Int).SetBytes(r[:k])}
	for v, st := range r[k : k+vars] {
		if configurator.State(st) > configurator.Forced {
			return nil, nil, fmt.Errorf("cell state %d: %w", st, errAnswersFormat)
		}
		an.Cells[v] = configurator.State(st)
	}
	if an.Solutions.Sign() == 0 {
		return nil, nil, fmt.Errorf("a count of 0 solutions: %w", errAnswersFormat)
	}
	if on := an.In(configurator.Queen); !slices.Equal(on, queens) {
		return nil, nil, fmt.Errorf("queens on %s, the key says %s: %w",
			configurator.FormatCells(on), configurator.FormatCells(queens), errAnswersFormat)
	}
	return an, r[k+vars:], nil
}

// decodeHeat reads the heat map of an entry from the front of r, and
// returns the rest of r. Every solution holds one queen on each rank and
// the queens of its board, so each rank's counts add up to the same total,
// which the key's queens hold whole: a heat map that says otherwise is
// refused.
func decodeHeat(r []byte, queens []configurator.Cell, model *configurator.Model) ([]*big.Int, []byte, error) {
	n := model.N()
	heat := make([]*big.Int, model.Vars())
	for v := range heat {
		if len(r) < 1 || int(r[0]) > maxCountLen || len(r) < 1+int(r[0]) {
			return nil, nil, fmt.Errorf("heat map cut short: %w", errAnswersFormat)
		}
		heat[v] = new(big.Int).SetBytes(r[1 : 1+r[0]])
		r = r[1+r[0]:]
	}
	var total *big.Int
	for row := range n {
		sum := new(big.Int)
		for _, x := range heat[row*n : row*n+n] {
			sum.Add(sum, x)
		}
		if total == nil {
			total = sum
		}
		if sum.Cmp(total) != 0 || sum.Sign() == 0 {
			return nil, nil, fmt.Errorf("heat map: rank %d counts %v solutions, rank 1 %v: %w", row+1, sum, total, errAnswersFormat)
		}
	}
	for _, q := range queens {
		if heat[model.Var(q)].Cmp(total) != 0 {
			return nil, nil, fmt.Errorf("heat map: %v solutions of %v hold its queen: %w", heat[model.Var(q)], total, errAnswersFormat)
		}
	}
	return heat, r, nil
}

// keyQueens lists, row-major, the queens of the board an entry's key
// stands for, if the key is one the space's memo keys the entry's kind
// by: 0 for the empty board, for a board of one queen 1 + the variable of
// the first of its images, for two queens the least pair of variables over
// their images (pairKey).
func keyQueens(a answer, model *configurator.Model) ([]configurator.Cell, error) {
	vars, n := model.Vars(), model.N()
	switch {
	case (a.kind == kindOne || a.kind == kindHeat) && a.key == 0:
		return nil, nil
	case (a.kind == kindOne || a.kind == kindHeat) && a.key <= vars:
		if q := model.Cell(a.key - 1); canonical(q, n) == (symmetry{}) {
			return []configurator.Cell{q}, nil
		}
	case a.kind == kindPair && a.key < vars*vars:
		q := []configurator.Cell{model.Cell(a.key / vars), model.Cell(a.key % vars)}
		if _, key := pairKey(model, q); a.key/vars < a.key%vars && key == a.key {
			return q, nil
		}
	}
	return nil, fmt.Errorf("kind %d, key %d: not a key of the memo: %w", a.kind, a.key, errAnswersFormat)
}
