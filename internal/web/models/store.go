// Package models is the web server's store of feature models: the bundled
// examples, the built-in boards and the models people upload (UVL, DIMACS
// CNF, FeatureIDE XML or SXFM), each under an ID that is a hash of its
// content, so that the same file always gets the same ID and an address
// that names one is good for as long as the model is kept. Uploads are
// kept in the server's cache directory and read again by ID after a
// restart; a file there that does not hash to its name, or does not
// parse, is refused and removed, never trusted.
//
// The store holds models, not their compiled spaces, which the server's
// one cache of compiled spaces (package spaces) compiles and holds for
// boards and models alike, reading the models from the store. The parsed
// models the store holds in memory are bounded by Config.Bytes, each
// charged a bound of what it holds (Bytes): the models used least
// recently give way, and are read again from the directory when asked
// for. Like the rest of the server, the store keeps no person's
// decisions: they come with every request.
//
// The package knows nothing of HTTP; its errors are values (ErrNotFound,
// *feature.Error, *QuotaError, ...) that the server words.
package models

import (
	"cmp"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// MaxSize is the largest model file the store takes, in bytes.
const MaxSize = 16 << 20

// Errors of the store, for errors.Is.
var (
	// ErrNotFound: no model has that ID (never uploaded, forgotten, or
	// its file damaged).
	ErrNotFound = errors.New("no such model")
	// ErrTooBig: a model file of more than MaxSize bytes.
	ErrTooBig = errors.New("model file too large")
	// ErrName: a file's name that cannot name a model (see
	// feature.NameFault).
	ErrName = errors.New("the file's name cannot name a model")
)

// Config is what bounds the store.
type Config struct {
	// Dir is the directory that keeps uploaded models across restarts;
	// "" keeps them in memory only (forgotten when they give way).
	Dir string
	// Bytes bounds the parsed models held in memory, each charged a
	// bound of what it holds (a model by its features, names, groups,
	// constraints and clauses, never by its file's size: see Bytes); the
	// bundled examples are always held.
	Bytes int64
	// DiskBytes bounds the files kept in Dir, every file of the store
	// counted (a model's, its name's, a write's under way); DiskModels
	// bounds their number. When an upload needs room, the uploader's own
	// models give way first, the least recently used first, then the
	// models no one used within Recent; a model another client used
	// within Recent is kept, and when no room can be made so the upload
	// is refused (ErrFull). 0: no bound.
	DiskBytes  int64
	DiskModels int
	// Recent is how long after its last use (or its upload) a model is
	// kept from other clients' uploads; 0: DefaultRecent.
	Recent time.Duration
	// Quota bounds each client's uploads (configurator.ClientOf, an IPv6
	// address by its /64); the zero Quota bounds none.
	Quota Quota
	// Receiving bounds the bytes of the upload bodies being received at
	// once (see Receive); 0: DefaultReceiving.
	Receiving int64
	// MaxFeatures is the most features a model may have; 0: no bound.
	MaxFeatures int
	// Slots is the number of parses that run at once.
	Slots int
}

// DefaultRecent is how long a model used is kept from other clients'
// uploads when Config.Recent says nothing.
const DefaultRecent = time.Hour

// MaxBoard is the largest built-in board.
const MaxBoard = 32

// Board reports the board size of a built-in board's ID (up to MaxBoard).
func Board(id string) (n int, ok bool) {
	n, ok = configurator.ParseBoardID(id)
	return n, ok && n <= MaxBoard
}

// Info describes a model in the store.
type Info struct {
	// ID names the model: a hash of its format and its content.
	ID string
	// Name is the model's namespace (UVL), or else the name of the file
	// it was uploaded as, without its extension, or else its root
	// feature's name; "model" and the ID's start when none is known.
	Name   string
	Format feature.Format
	// Features and Constraints count the model's features and its
	// cross-tree constraints (a CNF file's clauses).
	Features    int
	Constraints int
	// Example marks a bundled example (package examples).
	Example bool
	// Board is the size of a built-in board (BoardID), 0 for other models.
	Board int
}

// Store is the server's store of models. Its methods are safe for
// concurrent use.
type Store struct {
	cfg     Config
	log     *slog.Logger
	disk    *disk           // nil without Config.Dir
	parses  chan struct{}   // a slot per parse under way
	ctx     context.Context // ends with Close
	stop    context.CancelFunc
	work    sync.WaitGroup // the directory's scan
	uploads *uploaders

	boards [MaxBoard + 1]struct {
		once  sync.Once
		model *feature.Model
	}

	mu      sync.Mutex
	entries map[string]*entry
	lru     *list.List // of *entry holding a model, most recent first
	held    int64      // the weight of the entries in lru
	// evicted are the IDs of the models removed to make room, and when,
	// the last maxEvicted of them in order of removal (evictedOrder).
	evicted      map[string]time.Time
	evictedOrder []string
}

// entry is one model the store knows: its info always; its parsed model
// while it is held in memory (in the LRU list).
type entry struct {
	info   Info
	model  *feature.Model // nil while not held
	elem   *list.Element
	weight int64
	// owner is the client that uploaded the model (clientKey), "" when
	// unknown (read from the directory at a start); used is when a
	// request last asked for it.
	owner string
	used  time.Time
}

// New returns a store with the bundled examples, and with the models
// kept in cfg.Dir (created when missing), which it checks in the
// background: List shows each once it has been read and found sound.
// Close ends what the store runs.
func New(cfg Config, log *slog.Logger) (*Store, error) {
	if cfg.Recent <= 0 {
		cfg.Recent = DefaultRecent
	}
	if cfg.Receiving <= 0 {
		cfg.Receiving = DefaultReceiving
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Store{
		cfg:     cfg,
		log:     log,
		parses:  make(chan struct{}, max(cfg.Slots, 1)),
		ctx:     ctx,
		stop:    stop,
		entries: make(map[string]*entry),
		lru:     list.New(),
		uploads: &uploaders{quota: cfg.Quota, bound: cfg.Receiving, freed: make(chan struct{}),
			reading: make(map[string]bool), windows: make(map[string]window)},
		evicted: make(map[string]time.Time),
	}
	for _, ex := range examples.All() {
		m, err := ex.Model()
		if err != nil {
			stop()
			return nil, fmt.Errorf("models: %w", err)
		}
		info := describe(ID(ex.Format, ex.Source), ex.Name, m)
		info.Example = true
		s.entries[info.ID] = &entry{info: info, model: m}
	}
	if cfg.Dir != "" {
		d, err := openDisk(cfg.Dir, cfg.DiskBytes, cfg.DiskModels)
		if err != nil {
			stop()
			return nil, fmt.Errorf("models: %w", err)
		}
		s.disk = d
		s.work.Add(1)
		go s.scan()
	}
	return s, nil
}

// Close cancels the directory's scan, and waits for it.
func (s *Store) Close() {
	s.stop()
	s.work.Wait()
}

// ID is the ID of a model file of format f: the first 96 bits of the
// SHA-256 of the format's name and the content, in hex.
func ID(f feature.Format, src []byte) string {
	h := sha256.New()
	h.Write([]byte(f))
	h.Write([]byte{0})
	h.Write(src)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// validID reports whether id has the form of an ID.
func validID(id string) bool {
	return len(id) == 24 && strings.Trim(id, "0123456789abcdef") == ""
}

// describe is the info of model m read from a file named by file (a
// file's name without its extension, "" when unknown). A model's name is
// its namespace when it has one, else the file's name, else its root
// feature's name: people know a model by its file better than by a root
// feature called "root". A model known by none of them is "model" and the
// start of its ID.
func describe(id, file string, m *feature.Model) Info {
	name := m.Name
	namespace := m.Name != "" && (m.Root < 0 || m.Name != m.Features[m.Root].Name)
	if file != "" && !namespace {
		name = file
	}
	return Info{ID: id, Name: cmp.Or(name, "model "+id[:8]), Format: m.Format, Features: len(m.Features),
		Constraints: len(m.Constraints) + len(m.Clauses)}
}

// Add stores the model in src, read in format f (told from name and the
// content when f is ""); name is the file's name, which names a model
// that has no namespace (see Info.Name). It reports whether the model is new: the
// same file again gets the same ID and the model already stored. A file
// that does not parse gives the reader's *feature.Error (line:column,
// what was expected, the line quoted); a file past MaxSize ErrTooBig, a
// model past Config.MaxFeatures a *feature.Error of kind feature.ErrLimit,
// found as soon as the reader knows it (a CNF file at its header). Add honours ctx while it waits
// for a turn to parse.
//
// The client ctx names (configurator.ClientOf) owns the model: a new model
// counts against its Quota (a *QuotaError beyond it), and room for it in
// the directory is made from its own models first, then from models no
// one used recently, never from others used recently (ErrFull when no
// room can be made so).
func (s *Store) Add(ctx context.Context, name string, src []byte, f feature.Format) (Info, bool, error) {
	if len(src) > MaxSize {
		return Info{}, false, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooBig, len(src), MaxSize)
	}
	if f == "" {
		f = modelfile.Detect(name, src)
	}
	id := ID(f, src)
	var held Info // the model's when the store holds it in memory
	s.mu.Lock()
	if e := s.entries[id]; e != nil && e.model != nil {
		held = e.info
	}
	s.mu.Unlock()
	if held.ID != "" {
		if s.disk != nil && !held.Example {
			s.disk.touch(id, held.Format)
		}
		return held, false, nil
	}
	base := strings.TrimSuffix(path.Base(name), path.Ext(name))
	if base == "." || base == "/" {
		base = ""
	}
	if _, found, kind := feature.NameFault(base); kind != nil {
		return Info{}, false, fmt.Errorf("%w: %s", ErrName, found)
	}
	m, err := s.parse(ctx, name, src, f)
	if err != nil {
		return Info{}, false, err
	}
	client := clientKey(configurator.ClientOf(ctx))
	if err := s.uploads.admit(client, int64(len(src)), time.Now()); err != nil {
		return Info{}, false, err
	}
	info := describe(id, base, m)
	if s.disk != nil {
		removed, err := s.disk.save(id, f, src, base, s.policy(client))
		switch {
		case errors.Is(err, ErrFull):
			return Info{}, false, err
		case err != nil:
			s.log.Warn("keeping a model in the cache directory", "model", id, "err", err)
		}
		s.removed(removed)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.evicted, id)
	if e := s.entries[id]; e != nil {
		// Stored meanwhile by another upload, or known from the directory:
		// its scan may have read the file this upload has just written,
		// so a model no one owns is the uploader's, as if it were new.
		if e.owner == "" {
			e.owner, e.used = client, time.Now()
		}
		if e.model == nil {
			s.hold(e, m)
		}
		return e.info, false, nil
	}
	e := &entry{info: info, owner: client, used: time.Now()}
	s.entries[id] = e
	s.hold(e, m)
	return e.info, true, nil
}

// policy is the directory's policy of removal for an upload of client:
// its own models first, then those not used within Config.Recent.
func (s *Store) policy(client string) policy {
	return policy{
		since: time.Now().Add(-s.cfg.Recent),
		mine: func(id string) bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			e := s.entries[id]
			return client != "" && e != nil && e.owner == client
		},
		used: func(id string, mod time.Time) time.Time {
			// What the store knows of a use is exact; a file's time, as
			// coarse as the file system keeps it, may tie with others'
			// and is the answer only for a model the store does not hold.
			s.mu.Lock()
			defer s.mu.Unlock()
			if e := s.entries[id]; e != nil && !e.used.IsZero() {
				return e.used
			}
			return mod
		},
	}
}

// removed forgets the models whose files the directory removed to make
// room, and remembers when, so that their addresses say so (Evicted).
func (s *Store) removed(ids []string) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		s.log.Info("model removed to make room for an upload", "model", id)
		s.remember(id, now)
	}
}

// remember forgets the model of id, removed at when to make room, and
// records when, forgetting the oldest such record beyond maxEvicted. s.mu
// is held.
func (s *Store) remember(id string, when time.Time) {
	if e := s.entries[id]; e != nil {
		s.drop(e)
		delete(s.entries, id)
	}
	if _, ok := s.evicted[id]; !ok {
		s.evictedOrder = append(s.evictedOrder, id)
	}
	s.evicted[id] = when
	for len(s.evictedOrder) > maxEvicted {
		delete(s.evicted, s.evictedOrder[0])
		s.evictedOrder = s.evictedOrder[1:]
	}
}

// notFound is the error of a model id the store does not have: Evicted
// when it removed it to make room.
func (s *Store) notFound(id string) error {
	s.mu.Lock()
	when, ok := s.evicted[id]
	s.mu.Unlock()
	if ok {
		return &Evicted{ID: id, When: when}
	}
	return fmt.Errorf("model %s: %w", id, ErrNotFound)
}

// parse reads src in format f in one of the parses' slots, and checks
// the model against the store's bounds.
func (s *Store) parse(ctx context.Context, name string, src []byte, f feature.Format) (*feature.Model, error) {
	select {
	case s.parses <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	limit := s.cfg.MaxFeatures
	if limit <= 0 {
		limit = math.MaxInt
	}
	// A model past the bound is refused as soon as the reader knows it (a
	// CNF file at its header), before it is built.
	m, err := modelfile.ParseMax(name, src, f, limit)
	<-s.parses
	return m, err
}

// board returns the model of the built-in n×n board and its info, made
// when first asked for and held from then on (the largest is a few
// megabytes).
func (s *Store) board(n int) (*feature.Model, Info) {
	b := &s.boards[n]
	b.once.Do(func() {
		board, err := configurator.New(n, configurator.RowMajor)
		if err == nil {
			b.model, err = board.FeatureModel()
		}
		if err != nil {
			panic(fmt.Sprintf("models: the built-in %d×%d board: %v", n, n, err)) // New takes every n up to MaxBoard
		}
	})
	return b.model, boardInfo(n)
}

// boardInfo is the info of the built-in n×n board, without making its
// model: its features and its lines (a rank and a file each, and the
// diagonals of two squares or more).
func boardInfo(n int) Info {
	lines := 2 * n
	if n > 1 {
		lines += 2 * (2*n - 3)
	}
	return Info{ID: configurator.BoardID(n), Name: configurator.BoardName(n), Format: feature.Board, Features: n * n, Constraints: lines, Board: n}
}

// List returns the info of every model the store knows: the bundled
// examples first, then the built-in boards by size, then the others by
// name.
func (s *Store) List() []Info {
	s.mu.Lock()
	out := make([]Info, 0, len(s.entries)+MaxBoard)
	for _, e := range s.entries {
		if e.info.Board == 0 {
			out = append(out, e.info)
		}
	}
	s.mu.Unlock()
	for n := 1; n <= MaxBoard; n++ {
		out = append(out, boardInfo(n))
	}
	kind := func(in Info) int { // examples, boards, the others
		switch {
		case in.Example:
			return 0
		case in.Board > 0:
			return 1
		}
		return 2
	}
	slices.SortFunc(out, func(a, b Info) int {
		return cmp.Or(cmp.Compare(kind(a), kind(b)), cmp.Compare(a.Board, b.Board), strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	return out
}

// MaxPage is the most models Page lists at once.
const MaxPage = 500

// Page returns at most limit models of List (at most MaxPage; limit < 1
// means MaxPage), those after the model with ID after ("": from the
// first), and the ID to ask after for the next page, "" at the end. An
// after that names no model of the list (one removed since) gives no page
// and ok false. A page's bytes are bounded by its length, each model's
// info being bounded (names of at most 256 bytes).
func (s *Store) Page(limit int, after string) (page []Info, next string, ok bool) {
	if limit < 1 || limit > MaxPage {
		limit = MaxPage
	}
	list := s.List()
	start := 0
	if after != "" {
		i := slices.IndexFunc(list, func(in Info) bool { return in.ID == after })
		if i < 0 {
			return nil, "", false
		}
		start = i + 1
	}
	end := min(start+limit, len(list))
	page = list[start:end]
	if end < len(list) {
		next = page[len(page)-1].ID
	}
	return page, next, true
}

// Model returns the model of id and its info, read again from the cache
// directory when it is not held in memory. An ID the store does not know,
// or whose file is damaged, gives ErrNotFound. The model may give way to
// others at any time after; the model and info returned stay valid.
func (s *Store) Model(ctx context.Context, id string) (*feature.Model, Info, error) {
	if n, ok := Board(id); ok {
		m, info := s.board(n)
		return m, info, nil
	}
	if strings.HasPrefix(id, configurator.BoardIDPrefix) {
		return nil, Info{}, &NoBoard{ID: id}
	}
	if !validID(id) {
		return nil, Info{}, fmt.Errorf("model %q: %w", id, ErrNotFound)
	}
	s.mu.Lock()
	e := s.entries[id]
	if e != nil && e.model != nil {
		if e.elem != nil {
			s.lru.MoveToFront(e.elem)
		}
	} else {
		s.mu.Unlock()
		if s.disk == nil {
			return nil, Info{}, s.notFound(id)
		}
		info, m, err := s.load(ctx, id)
		if err != nil {
			return nil, Info{}, err
		}
		s.mu.Lock()
		if e = s.entries[id]; e == nil {
			e = &entry{info: info}
			s.entries[id] = e
		}
		if e.model == nil {
			s.hold(e, m)
		}
	}
	defer s.mu.Unlock()
	e.used = time.Now()
	return e.model, e.info, nil
}

// load reads the model of id from the directory. A file that does not
// hash to id or does not parse is removed, and gives ErrNotFound.
func (s *Store) load(ctx context.Context, id string) (Info, *feature.Model, error) {
	f, src, err := s.disk.read(id)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("refusing a model file that does not read", "model", id, "err", err)
		}
		s.forget(id, f)
		return Info{}, nil, s.notFound(id)
	}
	var m *feature.Model
	if ID(f, src) != id {
		err = errors.New("its content does not hash to its name")
	} else if m, err = s.parse(ctx, "", src, f); err != nil && ctx.Err() != nil {
		return Info{}, nil, err
	}
	if err != nil {
		s.log.Warn("refusing a damaged model file", "model", id, "err", err)
		s.forget(id, f)
		return Info{}, nil, fmt.Errorf("model %s: its file is damaged: %w", id, ErrNotFound)
	}
	s.disk.touch(id, f)
	return describe(id, s.disk.name(id), m), m, nil
}

// forget removes id's file (when f names its format) and its entry,
// unless the entry holds its model.
func (s *Store) forget(id string, f feature.Format) {
	if f != "" {
		s.disk.remove(id, f)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[id]; ok && e.model == nil {
		delete(s.entries, id)
	}
}

// scan reads every model of the directory once, in the background, so
// that List shows them; each is held while there is room.
func (s *Store) scan() {
	defer s.work.Done()
	for _, id := range s.disk.ids() {
		if s.ctx.Err() != nil {
			return
		}
		info, m, err := s.load(s.ctx, id)
		if err != nil {
			continue
		}
		s.mu.Lock()
		_, known := s.entries[id]
		_, removed := s.evicted[id] // by an upload since the scan read it
		if !known && !removed {
			e := &entry{info: info}
			s.entries[id] = e
			if s.held+Bytes(m) <= s.cfg.Bytes {
				s.hold(e, m)
			}
		}
		s.mu.Unlock()
	}
}

// hold keeps m as e's model in memory and lets the least recently used
// models give way while the store holds more than its bound. Bundled
// examples are never let go and not counted. s.mu is held.
func (s *Store) hold(e *entry, m *feature.Model) {
	e.model = m
	if e.info.Example {
		return
	}
	e.weight = Bytes(m)
	e.elem = s.lru.PushFront(e)
	s.held += e.weight
	s.shed(e)
}

// shed lets the least recently used models but keep give way while the
// store holds more than its bound. s.mu is held.
func (s *Store) shed(keep *entry) {
	for s.held > s.cfg.Bytes {
		el := s.lru.Back()
		if el == nil || el.Value.(*entry) == keep {
			return
		}
		e := el.Value.(*entry)
		if s.disk == nil {
			s.remember(e.info.ID, time.Now()) // forgotten: nothing to read it from
		} else {
			s.drop(e)
		}
	}
}

// drop lets e's model go. s.mu is held.
func (s *Store) drop(e *entry) {
	if e.elem == nil {
		return
	}
	s.lru.Remove(e.elem)
	s.held -= e.weight
	e.elem, e.model, e.weight = nil, nil, 0
}
