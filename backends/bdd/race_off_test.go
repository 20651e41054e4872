//go:build !race

package bdd

// raceEnabled reports whether the tests run with the race detector, under
// which sync.Pool drops a share of what it is given.
const raceEnabled = false
