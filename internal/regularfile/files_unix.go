//go:build unix

package regularfile

import "syscall"

// openNonblock opens a FIFO or a device without waiting for a writer or
// the device: the open returns, and the check of the file's type refuses
// it.
const openNonblock = syscall.O_NONBLOCK
