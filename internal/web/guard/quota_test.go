package guard

import (
	"testing"
	"time"
)

// TestClientLimitExpiry checks that the table of clients forgets an idle
// address, so that it does not grow with every address ever seen.
func TestClientLimitExpiry(t *testing.T) {
	l := newClients(Quota{Rate: 1, Burst: 1}, Quota{})
	now := time.Now()
	for _, addr := range []string{"203.0.113.1", "203.0.113.2", "2001:db8::1", "127.0.0.1"} {
		if done, p := l.admit(addr, now); p != nil {
			t.Fatalf("%s: refused at first: %v", addr, p)
		} else {
			done()
		}
	}
	if got := len(l.clients); got != 3 {
		t.Errorf("%d clients kept, want 3 (loopback is not limited, so not kept)", got)
	}
	later := now.Add(clientExpiry + clientSweep)
	done, p := l.admit("198.51.100.1", later)
	if p != nil {
		t.Fatalf("refused: %v", p)
	}
	done()
	if got := len(l.clients); got != 1 {
		t.Errorf("%d clients kept after %v idle, want 1 (the new one)", got, clientExpiry+clientSweep)
	}
}
