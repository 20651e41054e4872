package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/web/words"
)

// Quota bounds what one client uploads: at most Models new models and
// Bytes of new files in every Window (a model the store has already
// costs nothing). Zero fields bound nothing.
type Quota struct {
	Models int
	Bytes  int64
	Window time.Duration
}

// Errors of uploads, for errors.Is.
var (
	// ErrUploading: the client is sending another upload; one at a time.
	ErrUploading = errors.New("another upload from the same client is being received")
	// ErrFull: the directory has no room that the store may free: the
	// models it keeps were uploaded by others and used recently.
	ErrFull = errors.New("the directory of uploaded models is full of models in use")
)

// QuotaError is the error of an upload beyond its client's Quota. Retry
// is when the client's window ends.
type QuotaError struct {
	Quota         Quota
	Models, Bytes int64 // what the client uploaded in its window, with this upload
	Retry         time.Duration
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("this upload makes %d new models (%s) from your address in %v, beyond the %d models and %s each address may upload in that time",
		e.Models, bytesize.Format(e.Bytes), e.Quota.Window, e.Quota.Models, bytesize.Format(e.Quota.Bytes))
}

// Evicted is the error of a model the store had and removed to make room
// for others: it wraps ErrNotFound, and says when.
type Evicted struct {
	ID   string
	When time.Time
}

func (e *Evicted) Error() string {
	return fmt.Sprintf("model %s was removed from this server at %s UTC to make room for newer uploads", e.ID, e.When.UTC().Format(time.DateTime))
}

func (e *Evicted) Unwrap() error { return ErrNotFound }

// NoBoard is the error of a built-in board's name with a size no built-in
// board has (queens-99): no model of that ID was ever kept, so it says
// which boards there are. It wraps ErrNotFound.
type NoBoard struct{ ID string }

func (e *NoBoard) Error() string {
	return fmt.Sprintf("there is no board %s: the built-in boards are %s to %s", words.Quote(e.ID), configurator.BoardID(1), configurator.BoardID(MaxBoard))
}

func (e *NoBoard) Unwrap() error { return ErrNotFound }

// maxEvicted bounds the IDs of removed models the store remembers.
const maxEvicted = 1 << 12

// clientKey is the key of the quota of a client identity
// (configurator.ClientOf): an IPv4 address itself, an IPv6 address its
// /64 (one host commonly holds a whole one), anything else as it is.
func clientKey(client string) string {
	ip := net.ParseIP(client)
	if ip == nil || ip.To4() != nil || ip.IsLoopback() {
		return client
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// uploaders is the store's account of its clients' uploads: the bodies
// being received, in all and per client, and what each client uploaded in
// its window.
type uploaders struct {
	quota Quota
	bound int64 // bytes of bodies being received at once

	mu        sync.Mutex
	receiving int64             // bytes reserved by the bodies being received
	freed     chan struct{}     // closed, and replaced, when bytes are freed
	reading   map[string]bool   // clients sending a body
	windows   map[string]window // by client, its current window
}

// window is what one client uploaded since start.
type window struct {
	start  time.Time
	models int64
	bytes  int64
}

// maxWindows bounds the clients whose windows the store keeps: past it,
// the windows that ended are forgotten, and then the oldest.
const maxWindows = 1 << 16

// DefaultReceiving is the bound of the bodies being received at once
// when Config.Receiving says none: four files of MaxSize.
const DefaultReceiving = 4 * MaxSize

// Receive reads an upload's body from r, at most MaxSize bytes; length is
// the length the request says, -1 when it says none. Before it reads a
// byte it reserves what the body may take (its length, or for a body of
// unknown length what reading MaxSize takes) within the bound of the
// bodies being received at once (Config.Receiving), waiting for room
// until ctx ends; and each client (configurator.ClientOf) sends one body
// at a time: a second one at once fails with ErrUploading (the process's
// own work, client "", is not held to that). So the memory
// of uploads under way is bounded before they are read, whoever sends
// them. A body past MaxSize fails with ErrTooBig. done gives the
// reservation back: call it once the file is stored or refused.
func (s *Store) Receive(ctx context.Context, r io.Reader, length int64) (src []byte, done func(), err error) {
	if length > MaxSize {
		return nil, nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooBig, length, MaxSize)
	}
	need := length
	if length < 0 {
		need = MaxSize + MaxSize/2 // a growing buffer and the one it replaces
	}
	release, err := s.uploads.reserve(ctx, clientKey(configurator.ClientOf(ctx)), need)
	if err != nil {
		return nil, nil, err
	}
	src, err = readBody(r, length)
	if err != nil {
		release()
		return nil, nil, err
	}
	return src, release, nil
}

// readBody reads r whole, at most MaxSize bytes, into a buffer of length
// bytes when it is known.
func readBody(r io.Reader, length int64) ([]byte, error) {
	if length >= 0 {
		buf := make([]byte, length)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		var one [1]byte
		if n, _ := r.Read(one[:]); n > 0 {
			return nil, fmt.Errorf("%w: the body is longer than its stated %d bytes", ErrTooBig, length)
		}
		return buf, nil
	}
	buf := make([]byte, 0, 64<<10)
	for {
		if len(buf) == cap(buf) {
			if len(buf) > MaxSize {
				return nil, fmt.Errorf("%w: more than %d bytes", ErrTooBig, MaxSize)
			}
			grown := make([]byte, len(buf), min(2*cap(buf), MaxSize+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case len(buf) > MaxSize:
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooBig, MaxSize)
		case errors.Is(err, io.EOF):
			return buf, nil
		case err != nil:
			return nil, err
		}
	}
}

// reserve admits client's body of need bytes: one per client (none for
// the process's own, client ""), need within the bound beside the others
// (a large body within three quarters of it), waiting for room until ctx
// ends.
func (u *uploaders) reserve(ctx context.Context, client string, need int64) (release func(), err error) {
	need = min(need, u.bound*3/4) // a body is read alone at worst
	u.mu.Lock()
	if client != "" && u.reading[client] {
		u.mu.Unlock()
		return nil, ErrUploading
	}
	if client != "" {
		u.reading[client] = true
	}
	// Large bodies leave a quarter of the bound to small ones, so that a
	// person's small upload is not held behind others' large ones.
	limit := u.bound
	if need > u.bound/16 {
		limit -= u.bound / 4
	}
	for u.receiving+need > limit {
		freed := u.freed
		u.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			u.mu.Lock()
			delete(u.reading, client)
			u.mu.Unlock()
			return nil, fmt.Errorf("waiting to receive an upload while %s of others were received: %w", bytesize.Format(u.bound), configurator.ErrBusy)
		}
		u.mu.Lock()
	}
	u.receiving += need
	u.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			u.mu.Lock()
			u.receiving -= need
			delete(u.reading, client)
			close(u.freed)
			u.freed = make(chan struct{})
			u.mu.Unlock()
		})
	}, nil
}

// admit checks that a new model of size bytes from client fits its quota,
// and counts it when it does. Work the process does for itself (client
// "") has no quota.
func (u *uploaders) admit(client string, size int64, now time.Time) error {
	q := u.quota
	if client == "" || q.Window <= 0 || (q.Models <= 0 && q.Bytes <= 0) {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	w, ok := u.windows[client]
	if !ok || now.Sub(w.start) >= q.Window {
		if !ok && len(u.windows) >= maxWindows {
			u.forgetWindows(now)
		}
		w = window{start: now}
	}
	models, bytes := w.models+1, w.bytes+size
	if (q.Models > 0 && models > int64(q.Models)) || (q.Bytes > 0 && bytes > q.Bytes) {
		return &QuotaError{Quota: q, Models: models, Bytes: bytes, Retry: w.start.Add(q.Window).Sub(now)}
	}
	w.models, w.bytes = models, bytes
	u.windows[client] = w
	return nil
}

// forgetWindows forgets the windows that ended, and while the table is
// still full, the oldest. u.mu is held.
func (u *uploaders) forgetWindows(now time.Time) {
	var oldest string
	for c, w := range u.windows {
		if now.Sub(w.start) >= u.quota.Window {
			delete(u.windows, c)
		} else if oldest == "" || w.start.Before(u.windows[oldest].start) {
			oldest = c
		}
	}
	if len(u.windows) >= maxWindows {
		delete(u.windows, oldest)
	}
}
