package guard

import (
	"net"
	"testing"
)

// TestCappedConnCloseOnce closes a connection twice: its slot is freed
// once, so the cap never grows.
func TestCappedConnCloseOnce(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	freed := 0
	c := &cappedConn{Conn: a, release: func() { freed++ }}
	for range 3 {
		c.Close()
	}
	if freed != 1 {
		t.Errorf("three Closes freed %d slots, want 1", freed)
	}
}
