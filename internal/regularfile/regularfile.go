// Package regularfile opens the files of a server's directories for
// reading without trusting what stands at their place: a FIFO or a device
// put there (by mistake or by an attack) is refused at once, never waited
// on, so that no request hangs on it and no shutdown waits for it.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular reports a file that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading if it is a regular file: a FIFO or a device
// at its place is opened without waiting for a writer or the device
// (O_NONBLOCK where the system has it) and refused with ErrNotRegular.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %s: %w", path, fi.Mode().Type(), ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the regular file at path whole, at most limit bytes: a
// longer file reads as limit+1 bytes, for the caller to refuse.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}
