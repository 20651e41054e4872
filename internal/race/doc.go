// Package race tells whether the race detector is on, so that a test sized
// for a plain build can size itself for a race build, which runs several
// times slower.
//
// make test runs the suite twice: once under the race detector, for the
// tests that exercise concurrency, and once without it, where every test
// runs at full size. A test whose work is large and whose concurrency is
// covered at a smaller size shrinks (or skips) under Enabled; the plain pass
// still runs it in full, so no assertion is lost.
package race
