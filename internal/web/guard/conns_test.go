package guard

import (
	"net"
	"testing"
)

// TestConnCloseOnce closes a connection twice, and once more as the cap
// reclaims it: its slot is freed once, so the cap never grows.
func TestConnCloseOnce(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	freed := make(chan struct{}, 4)
	c := &conn{Conn: a, release: func() { freed <- struct{}{} }}
	b.Close() // the linger ends at once
	for range 2 {
		c.Close()
	}
	c.closeNow()
	<-freed
	if len(freed) != 0 {
		t.Errorf("three closes freed %d slots, want 1", 1+len(freed))
	}
}
