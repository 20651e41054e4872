package models

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nqueens/configurator/configurator/feature"
)

// disk is the directory that keeps uploaded models: one file per model,
// named ID.uvl or ID.dimacs, written whole or not at all, beside the name
// it was uploaded as in ID.name; the least recently used removed beyond
// its bound.
type disk struct {
	dir   string
	bound int64      // bytes; 0: none
	mu    sync.Mutex // serialises saving and shedding
}

// openDisk returns the directory dir, created when missing.
func openDisk(dir string, bound int64) (*disk, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &disk{dir: dir, bound: bound}, nil
}

// formats are the formats of the files kept, in the order read looks for
// them.
var formats = []feature.Format{feature.UVL, feature.DIMACS, feature.FeatureIDE, feature.SXFM}

func (d *disk) path(id string, f feature.Format) string {
	return filepath.Join(d.dir, id+"."+string(f))
}

// ids lists the IDs of the models kept, the most recently used first.
func (d *disk) ids() []string {
	type kept struct {
		id   string
		used time.Time
	}
	var all []kept
	for _, fi := range d.files() {
		all = append(all, kept{fi.id, fi.mod})
	}
	slices.SortFunc(all, func(a, b kept) int { return b.used.Compare(a.used) })
	out := make([]string, len(all))
	for i, k := range all {
		out[i] = k.id
	}
	return out
}

// file is one model file of the directory.
type file struct {
	id   string
	f    feature.Format
	size int64
	mod  time.Time
}

// files lists the directory's model files; other files are left alone.
func (d *disk) files() []file {
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return nil
	}
	var out []file
	for _, de := range entries {
		id, ext, ok := strings.Cut(de.Name(), ".")
		if !ok || !validID(id) || !slices.Contains(formats, feature.Format(ext)) || !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue
		}
		out = append(out, file{id: id, f: feature.Format(ext), size: fi.Size(), mod: fi.ModTime()})
	}
	return out
}

// read returns the format and the content of id's file, refusing one
// larger than MaxSize.
func (d *disk) read(id string) (feature.Format, []byte, error) {
	for _, f := range formats {
		fh, err := os.Open(d.path(id, f))
		if err != nil {
			continue
		}
		src, err := io.ReadAll(io.LimitReader(fh, MaxSize+1))
		fh.Close()
		if err != nil {
			return "", nil, err
		}
		if len(src) > MaxSize {
			return f, nil, fmt.Errorf("%s: more than %d bytes", d.path(id, f), MaxSize)
		}
		return f, src, nil
	}
	return "", nil, os.ErrNotExist
}

// save writes id's file whole (a temporary file renamed), and the name
// it was uploaded as when none is kept yet (the first upload's stays),
// then removes the least recently used files beyond the bound, never the
// one saved.
func (d *disk) save(id string, f feature.Format, src []byte, name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := os.Stat(d.namePath(id)); err != nil {
		if err := d.write(d.namePath(id), []byte(name)); err != nil {
			return err
		}
	}
	if err := d.write(d.path(id, f), src); err != nil {
		return err
	}
	d.shed(id)
	return nil
}

// write writes the file at path whole: a temporary file renamed.
func (d *disk) write(path string, b []byte) error {
	tmp, err := os.CreateTemp(d.dir, ".upload-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func (d *disk) namePath(id string) string { return filepath.Join(d.dir, id+".name") }

// maxName bounds the name kept beside a model.
const maxName = 256

// name returns the name id's model was uploaded as, "" when none is kept
// or the one kept is not a name (not one line of valid UTF-8, too long).
func (d *disk) name(id string) string {
	b, err := os.ReadFile(d.namePath(id))
	if err != nil || len(b) > maxName || !utf8.Valid(b) || strings.ContainsAny(string(b), "\r\n\x00") {
		return ""
	}
	return string(b)
}

// shed removes the least recently used files while the directory holds
// more than its bound, never keep's. d.mu is held.
func (d *disk) shed(keep string) {
	if d.bound <= 0 {
		return
	}
	files := d.files()
	var total int64
	for _, fi := range files {
		total += fi.size
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	for _, fi := range files {
		if total <= d.bound {
			return
		}
		if fi.id == keep {
			continue
		}
		if os.Remove(d.path(fi.id, fi.f)) == nil {
			total -= fi.size
			os.Remove(d.namePath(fi.id))
		}
	}
}

// touch marks id's file as used now.
func (d *disk) touch(id string, f feature.Format) {
	now := time.Now()
	_ = os.Chtimes(d.path(id, f), now, now)
}

// remove deletes id's file and its name.
func (d *disk) remove(id string, f feature.Format) {
	_ = os.Remove(d.path(id, f))
	_ = os.Remove(d.namePath(id))
}
