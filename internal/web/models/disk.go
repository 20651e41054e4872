package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/regularfile"
)

// disk is the directory that keeps uploaded models: one file per model,
// named ID.uvl, ID.dimacs, ..., written whole or not at all, beside the
// name it was uploaded as in ID.name. Every file of the store counts
// against its bound (a model's file and its name together, and the
// temporary files of writes under way); beyond it, or beyond its count of
// models, files give way by the policy of shed. Files are read as regular
// files only (package regularfile): a FIFO or a device put in the
// directory is refused, never waited on.
type disk struct {
	dir    string
	bound  int64      // bytes; 0: none
	models int        // models kept at most; 0: no bound
	mu     sync.Mutex // serialises saving and shedding
}

// tempPrefix starts the names of the temporary files of writes.
const tempPrefix = ".upload-"

// staleTemp is how old a temporary file is when it is taken for one a
// write cut short left behind: far longer than a write of MaxSize takes.
const staleTemp = 10 * time.Minute

// openDisk returns the directory dir, created when missing, rid of what
// an earlier run left behind: temporary files of writes cut short, and
// names whose model's file is gone.
func openDisk(dir string, bound int64, models int) (*disk, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	d := &disk{dir: dir, bound: bound, models: models}
	d.clean()
	return d, nil
}

// clean removes the stale temporary files and the names without a model.
func (d *disk) clean() {
	_, _, stray := d.scan()
	for _, name := range stray {
		_ = os.Remove(filepath.Join(d.dir, name))
	}
}

// formats are the formats of the files kept, in the order read looks for
// them.
var formats = []feature.Format{feature.UVL, feature.DIMACS, feature.FeatureIDE, feature.SXFM}

func (d *disk) path(id string, f feature.Format) string {
	return filepath.Join(d.dir, id+"."+string(f))
}

// ids lists the IDs of the models kept, the most recently used first.
func (d *disk) ids() []string {
	all, _, _ := d.scan()
	slices.SortFunc(all, func(a, b file) int { return b.mod.Compare(a.mod) })
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
	size int64 // of the model's file and its name's
	mod  time.Time
}

// scan lists the directory's model files, each with the size of its name
// too, and the bytes of the store's other files (temporary files and
// names without a model); stray names those of them that no write under
// way holds (the names, and the temporary files older than staleTemp).
func (d *disk) scan() (models []file, other int64, stray []string) {
	entries, err := os.ReadDir(d.dir)
	if err != nil {
		return nil, 0, nil
	}
	names := make(map[string]int64)
	for _, de := range entries {
		if !de.Type().IsRegular() {
			continue
		}
		id, ext, ok := strings.Cut(de.Name(), ".")
		fi, err := de.Info()
		switch {
		case err != nil:
		case strings.HasPrefix(de.Name(), tempPrefix):
			other += fi.Size()
			if time.Since(fi.ModTime()) > staleTemp {
				stray = append(stray, de.Name())
			}
		case !ok || !validID(id):
		case ext == "name":
			names[id] = fi.Size()
		case slices.Contains(formats, feature.Format(ext)):
			models = append(models, file{id: id, f: feature.Format(ext), size: fi.Size(), mod: fi.ModTime()})
		}
	}
	for i := range models {
		models[i].size += names[models[i].id]
		delete(names, models[i].id)
	}
	for id, n := range names {
		other += n
		stray = append(stray, id+".name")
	}
	return models, other, stray
}

// read returns the format and the content of id's file, refusing one
// larger than MaxSize, and anything but a regular file.
func (d *disk) read(id string) (feature.Format, []byte, error) {
	for _, f := range formats {
		src, err := regularfile.ReadFile(d.path(id, f), MaxSize)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return f, nil, err
		}
		if len(src) > MaxSize {
			return f, nil, fmt.Errorf("%s: more than %d bytes", d.path(id, f), MaxSize)
		}
		return f, src, nil
	}
	return "", nil, os.ErrNotExist
}

// policy says which models may give way to another's upload: those of
// the uploader itself (mine), then those no one used since since; each
// was last used when used says (from what the store knows and the
// file's time).
type policy struct {
	mine  func(id string) bool
	used  func(id string, mod time.Time) time.Time
	since time.Time
}

// save writes id's file whole (a temporary file renamed), and the name
// it was uploaded as when none is kept yet (the first upload's stays),
// then makes room by p (see shed), never removing the one saved. When
// there is no room that p lets it make, it removes what it saved and
// fails with ErrFull. It returns the IDs of the models removed.
func (d *disk) save(id string, f feature.Format, src []byte, name string, p policy) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := os.Stat(d.path(id, f)); err == nil {
		d.touch(id, f) // the same file again: nothing to write
		return nil, nil
	}
	if _, err := os.Stat(d.namePath(id)); err != nil {
		if err := d.write(d.namePath(id), []byte(name)); err != nil {
			return nil, err
		}
	}
	if err := d.write(d.path(id, f), src); err != nil {
		_ = os.Remove(d.namePath(id))
		return nil, err
	}
	removed, ok := d.shed(id, p)
	if !ok {
		d.remove(id, f)
		return nil, ErrFull
	}
	return removed, nil
}

// write writes the file at path whole: a temporary file renamed.
func (d *disk) write(path string, b []byte) error {
	tmp, err := os.CreateTemp(d.dir, tempPrefix+"*")
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

// name returns the name id's model was uploaded as, "" when none is kept
// or the one kept is not a name (not one line of valid UTF-8, longer than
// a reader takes a name, not a regular file).
func (d *disk) name(id string) string {
	b, err := regularfile.ReadFile(d.namePath(id), feature.MaxNameBytes)
	if err != nil || len(b) > feature.MaxNameBytes || !utf8.Valid(b) || strings.ContainsAny(string(b), "\r\n\x00") {
		return ""
	}
	return string(b)
}

// shed makes the directory fit its bounds, in bytes and in models, after
// keep's file was saved: it removes the models of keep's uploader
// (p.mine), the least recently used first, then the models no one used
// since p.since, the least recently used first, and never a
// model another used recently, nor keep. When that cannot make room it
// removes nothing and reports false; else it reports the IDs it removed.
// d.mu is held.
func (d *disk) shed(keep string, p policy) (removed []string, ok bool) {
	files, total, _ := d.scan()
	for _, fi := range files {
		total += fi.size
	}
	count := len(files)
	over := func() bool {
		return (d.bound > 0 && total > d.bound) || (d.models > 0 && count > d.models)
	}
	if !over() {
		return nil, true
	}
	for i := range files {
		files[i].mod = p.used(files[i].id, files[i].mod)
	}
	slices.SortStableFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	var plan []file
	for _, pass := range []func(file) bool{
		func(fi file) bool { return p.mine(fi.id) },
		func(fi file) bool { return !p.mine(fi.id) && !fi.mod.After(p.since) },
	} {
		for _, fi := range files {
			if !over() {
				break
			}
			if fi.id != keep && pass(fi) {
				plan = append(plan, fi)
				total -= fi.size
				count--
			}
		}
	}
	if over() {
		return nil, false
	}
	for _, fi := range plan {
		d.remove(fi.id, fi.f)
		removed = append(removed, fi.id)
	}
	return removed, true
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
