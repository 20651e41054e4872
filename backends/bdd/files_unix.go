//go:build unix

package bdd

import (
	"os"
	"syscall"
	"time"
)

// openNonblock opens a FIFO or a device at a file's place without waiting
// for a writer or the device: the open returns, and the check of the
// file's type refuses it.
const openNonblock = syscall.O_NONBLOCK

// tryLock takes, without waiting, the exclusive lock a writer holds on its
// temporary file while it writes it (see store.write), and reports whether
// it got it: a temporary file nobody holds is what a writer that stopped
// mid-write left behind. The lock goes with the file's close.
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// staleAfter is how long a temporary file nobody holds is left alone: the
// moment between its creation and its writer's lock.
const staleAfter = 10 * time.Second
