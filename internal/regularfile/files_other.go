//go:build !unix

package regularfile

// openNonblock is 0 where the system opens a file's place without waiting
// anyway.
const openNonblock = 0
