package models

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// as is ctx for the client at addr.
func as(addr string) context.Context {
	return configurator.WithClient(context.Background(), addr)
}

// Bodies are bounded before they are read: one at a time per client, and
// within Config.Receiving in all, each reserving its stated length (or
// what reading MaxSize takes); a body past MaxSize is refused, unread when
// it says its length.
func TestReceive(t *testing.T) {
	cfg := testConfig("")
	cfg.Receiving = 100
	s := newStore(t, cfg)

	// Client A's body of 80 bytes, arriving slowly.
	pr, pw := io.Pipe()
	got := make(chan []byte, 1)
	go func() {
		src, done, err := s.Receive(as("10.0.0.1"), pr, 80)
		if err != nil {
			t.Error(err)
			got <- nil
			return
		}
		done()
		got <- src
	}()
	pw.Write(bytes.Repeat([]byte("a"), 40))

	if _, _, err := s.Receive(as("10.0.0.1"), strings.NewReader("x"), 1); !errors.Is(err, ErrUploading) {
		t.Errorf("a second body from the same client: %v, want ErrUploading", err)
	}
	short, cancel := context.WithTimeout(as("10.0.0.2"), 50*time.Millisecond)
	defer cancel()
	if _, _, err := s.Receive(short, strings.NewReader(strings.Repeat("b", 50)), 50); !errors.Is(err, configurator.ErrBusy) {
		t.Errorf("50 bytes beside 80 being received, bound 100: %v, want ErrBusy once its deadline passes", err)
	}
	small, done, err := s.Receive(as("10.0.0.3"), strings.NewReader("c"), 1)
	if err != nil || string(small) != "c" {
		t.Errorf("1 byte beside 80 being received: %q, %v", small, err)
	} else {
		done()
	}
	pw.Write(bytes.Repeat([]byte("a"), 40))
	pw.Close()
	if src := <-got; len(src) != 80 {
		t.Errorf("the slow body: %d bytes, want 80", len(src))
	}
	// Its room given back, the other client's body is received.
	src, done, err := s.Receive(as("10.0.0.2"), strings.NewReader(strings.Repeat("b", 50)), 50)
	if err != nil || len(src) != 50 {
		t.Fatalf("after the slow body: %d bytes, %v", len(src), err)
	}
	done()

	cfg.Receiving = 0
	s = newStore(t, cfg)
	for _, tc := range []struct {
		name   string
		body   io.Reader
		length int64
		want   error
		size   int
	}{
		{"stated", strings.NewReader("features\n\tA\n"), 12, nil, 12},
		{"unstated", io.LimitReader(zeros{}, 3<<20), -1, nil, 3 << 20},
		{"unstated, past MaxSize", io.LimitReader(zeros{}, MaxSize+1), -1, ErrTooBig, 0},
		{"stated past MaxSize", failing{t}, MaxSize + 1, ErrTooBig, 0},
		{"longer than stated", strings.NewReader("abcdef"), 3, ErrTooBig, 0},
	} {
		src, done, err := s.Receive(as("10.0.0.1"), tc.body, tc.length)
		if !errors.Is(err, tc.want) || len(src) != tc.size {
			t.Errorf("%s: %d bytes, %v; want %d, %v", tc.name, len(src), err, tc.size, tc.want)
		}
		if done != nil {
			done()
		}
	}
}

// zeros reads zero bytes, endlessly.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// failing is a body that must not be read.
type failing struct{ t *testing.T }

func (f failing) Read([]byte) (int, error) {
	f.t.Error("a body read that should have been refused unread")
	return 0, io.EOF
}

// Each client uploads within its quota, counted by new models and their
// bytes in its window; a file the store has costs nothing; an IPv6
// client is counted by its /64.
func TestQuota(t *testing.T) {
	cfg := testConfig("")
	cfg.Quota = Quota{Models: 2, Bytes: 1 << 20, Window: time.Hour}
	s := newStore(t, cfg)
	for i, tc := range []struct {
		client string
		src    []byte
		quota  bool
	}{
		{"10.0.0.1", chain(1), false},
		{"10.0.0.1", chain(2), false},
		{"10.0.0.1", chain(1), false}, // the same file again
		{"10.0.0.1", chain(3), true},
		{"10.0.0.2", chain(3), false},
		{"2001:db8::1", chain(4), false},
		{"2001:db8::2", chain(5), false},
		{"2001:db8::3", chain(6), true},
		{"2001:db8:0:1::1", chain(6), false},
		{"", chain(7), false}, // the process's own
	} {
		_, _, err := s.Add(as(tc.client), "m.uvl", tc.src, "")
		var qe *QuotaError
		if got := errors.As(err, &qe); got != tc.quota || (!got && err != nil) {
			t.Errorf("upload %d from %q: %v; want a quota error: %v", i, tc.client, err, tc.quota)
		}
		if qe != nil && (qe.Models != 3 || qe.Retry <= 0 || qe.Retry > time.Hour) {
			t.Errorf("upload %d: %+v", i, qe)
		}
	}
	big := Quota{Bytes: 100, Window: time.Hour}
	cfg.Quota = big
	s = newStore(t, cfg)
	if _, _, err := s.Add(as("10.0.0.1"), "m.uvl", chain(20), ""); !errors.As(err, new(*QuotaError)) {
		t.Errorf("a file past the client's bytes: %v, want a quota error", err)
	}
}

// One client's uploads never remove another's model used recently: they
// remove the uploader's own models, least recently used first, then
// models no one used recently; when that makes no room, the upload is
// refused. A removed model's address says it was removed.
func TestNoClientEvictsAnother(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Recent = time.Hour
	size := func(src []byte) int64 { return int64(len(src)) + int64(len("m")) } // the file and its name
	// Room for three models of about 600 bytes.
	cfg.DiskBytes = 3*size(chain(66)) + 10
	s := newStore(t, cfg)
	victim, _, err := s.Add(as("10.0.0.2"), "m.uvl", chain(60), "")
	if err != nil {
		t.Fatal(err)
	}
	var mine []Info
	for i := range 6 {
		in, _, err := s.Add(as("10.0.0.1"), "m.uvl", chain(61+i), "")
		if err != nil {
			t.Fatalf("the attacker's upload %d: %v", i, err)
		}
		mine = append(mine, in)
	}
	if _, _, err := s.Model(ctx, victim.ID); err != nil {
		t.Errorf("the other client's model after six uploads: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, victim.ID+".uvl")); err != nil {
		t.Errorf("the other client's file: %v", err)
	}
	for i, in := range mine[:4] {
		_, _, err := s.Model(ctx, in.ID)
		var ev *Evicted
		if !errors.As(err, &ev) || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "removed") || ev.When.IsZero() {
			t.Errorf("the attacker's model %d: %v, want it removed, saying so", i, err)
		}
		if _, err := os.Stat(filepath.Join(dir, in.ID+".name")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the name of the attacker's model %d: %v, want it gone with its file", i, err)
		}
	}
	for _, in := range mine[4:] {
		if _, _, err := s.Model(ctx, in.ID); err != nil {
			t.Errorf("the attacker's last two: %v", err)
		}
	}

	// A third client's file too large to fit beside two recent models of
	// others: refused, nothing removed.
	if _, _, err := s.Add(as("10.0.0.3"), "m.uvl", chain(150), ""); !errors.Is(err, ErrFull) {
		t.Errorf("an upload that fits only by removing others' recent models: %v, want ErrFull", err)
	}
	for _, id := range []string{victim.ID, mine[4].ID, mine[5].ID} {
		if _, _, err := s.Model(ctx, id); err != nil {
			t.Errorf("after the refused upload: %v", err)
		}
	}

	// Once no one used them recently, others' models give way.
	s.cfg.Recent = time.Nanosecond
	if _, _, err := s.Add(as("10.0.0.3"), "m.uvl", chain(150), ""); err != nil {
		t.Errorf("an upload beside models unused since: %v", err)
	}
}

// The directory counts every file of the store in its bound (names and
// writes under way), and a start removes what an earlier run left: stale
// temporary files and names without a model.
func TestDiskCountsEveryFile(t *testing.T) {
	dir := t.TempDir()
	stale, orphan := filepath.Join(dir, tempPrefix+"old"), filepath.Join(dir, strings.Repeat("a", 24)+".name")
	fresh := filepath.Join(dir, tempPrefix+"new")
	for _, p := range []string{stale, orphan, fresh} {
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(dir)
	cfg.DiskBytes = 1500 // a fresh write under way takes 1000 of it
	s := newStore(t, cfg)
	for p, want := range map[string]bool{stale: false, orphan: false, fresh: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s after a start: %v, want kept %v", filepath.Base(p), err, want)
		}
	}
	long := strings.Repeat("n", 200) + ".uvl"
	if _, _, err := s.Add(as("10.0.0.1"), long, chain(30), ""); !errors.Is(err, ErrFull) {
		t.Errorf("a model of %d bytes and its name of 200 beside a write of 1000, bound 1500: %v, want ErrFull", len(chain(30)), err)
	}
	if err := os.Remove(fresh); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Add(as("10.0.0.1"), long, chain(30), ""); err != nil {
		t.Errorf("once the write is gone: %v", err)
	}
}

// A FIFO at a model's place in the directory is refused at once, by a
// request and by a start's scan, never waited on.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	id := ID(feature.UVL, chain(3))
	if err := syscall.Mkfifo(filepath.Join(dir, id+".uvl"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, id+".name"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		s, err := New(testConfig(dir), quiet)
		if err != nil {
			done <- err
			return
		}
		defer s.Close()
		_, _, err = s.Model(context.Background(), id)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("a FIFO as a model's file: %v, want ErrNotFound", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a FIFO as a model's file: no answer in 5s")
	}
}

// Page lists the models in List's order, a page at a time, each page
// taking up where the last ended; an unknown cursor is refused.
func TestPage(t *testing.T) {
	s := newStore(t, testConfig(""))
	for i := range 7 {
		if _, _, err := s.Add(context.Background(), "m.uvl", chain(i+1), ""); err != nil {
			t.Fatal(err)
		}
	}
	all := s.List()
	for _, limit := range []int{1, 3, 10, len(all), 0, MaxPage + 1} {
		var got []Info
		after, pages := "", 0
		for {
			page, next, ok := s.Page(limit, after)
			if !ok {
				t.Fatalf("limit %d after %q: refused", limit, after)
			}
			if want := min(max(limit, 0), MaxPage); (limit >= 1 && limit <= MaxPage && len(page) > want) || len(page) == 0 {
				t.Fatalf("limit %d: a page of %d", limit, len(page))
			}
			got = append(got, page...)
			pages++
			if next == "" {
				break
			}
			after = next
		}
		if !slices.Equal(got, all) {
			t.Errorf("limit %d: the pages hold %d models, want the %d of List in its order", limit, len(got), len(all))
		}
		if limit >= 1 && limit <= MaxPage {
			if want := (len(all) + limit - 1) / limit; pages != want {
				t.Errorf("limit %d: %d pages, want %d", limit, pages, want)
			}
		}
	}
	if page, _, ok := s.Page(10, strings.Repeat("0", 24)); ok {
		t.Errorf("an unknown cursor: a page of %d, want it refused", len(page))
	}
}

// A file's name that cannot name a model is refused, whatever the file.
func TestAddRefusesNames(t *testing.T) {
	s := newStore(t, testConfig(""))
	for _, name := range []string{strings.Repeat("n", 257) + ".uvl", "a\x00b.uvl", "a\nb.uvl", "\xff.uvl"} {
		if _, _, err := s.Add(context.Background(), name, chain(2), ""); !errors.Is(err, ErrName) {
			t.Errorf("%q: %v, want ErrName", name, err)
		}
	}
	if in, _, err := s.Add(context.Background(), strings.Repeat("n", 256)+".uvl", chain(2), ""); err != nil || in.Name != strings.Repeat("n", 256) {
		t.Errorf("a name of 256 bytes: %+v, %v", in, err)
	}
}

// Large bodies leave room for small ones: with the bound's large share
// taken, a small body is received at once, another large one waits.
func TestReceiveSmallBesideLarge(t *testing.T) {
	cfg := testConfig("")
	cfg.Receiving = 1600
	s := newStore(t, cfg)
	var holds []func()
	for i := range 3 {
		_, done, err := s.Receive(as(fmt.Sprintf("10.0.1.%d", i)), strings.NewReader(strings.Repeat("a", 400)), 400)
		if err != nil {
			t.Fatalf("large body %d of three within three quarters: %v", i, err)
		}
		holds = append(holds, done)
	}
	short, cancel := context.WithTimeout(as("10.0.2.1"), 50*time.Millisecond)
	defer cancel()
	if _, _, err := s.Receive(short, strings.NewReader(strings.Repeat("a", 400)), 400); !errors.Is(err, configurator.ErrBusy) {
		t.Errorf("a fourth large body: %v, want it to wait (ErrBusy at its deadline)", err)
	}
	if src, done, err := s.Receive(as("10.0.2.2"), strings.NewReader("features\n\tA\n"), 12); err != nil || len(src) != 12 {
		t.Errorf("a small body beside three large ones: %v", err)
	} else {
		done()
	}
	for _, done := range holds {
		done()
	}
}
