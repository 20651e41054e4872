//go:build !unix

package bdd

import (
	"os"
	"time"
)

// openNonblock is 0 where the system opens a file's place without waiting
// anyway.
const openNonblock = 0

// tryLock reports true where the system has no advisory locks: a
// temporary file is then stale by its age alone (see store.clean).
func tryLock(*os.File) bool { return true }

// staleAfter is how old a temporary file is when it is taken for stale,
// without locks to tell: far longer than any write takes.
const staleAfter = 30 * time.Minute
