//go:build race

package race

// Enabled reports whether the program was built with the race detector
// (go build -race, go test -race).
const Enabled = true
