package guard

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// admitted admits one request of addr at now and reports its status: 200
// when admitted (and counted out at once), else the refusal's.
func admitted(t *testing.T, l *clients, addr string, now time.Time) int {
	t.Helper()
	done, p := l.admit(addr, now)
	if p != nil {
		return p.Status
	}
	done()
	return http.StatusOK
}

// TestClientLimitExpiry checks that the table of clients forgets an idle
// address, so that it does not grow with every address ever seen.
func TestClientLimitExpiry(t *testing.T) {
	l := newClients(Quota{Rate: 1, Burst: 1}, Quota{})
	now := time.Now()
	for _, addr := range []string{"203.0.113.1", "203.0.113.2", "2001:db8::1", "127.0.0.1"} {
		if got := admitted(t, l, addr, now); got != http.StatusOK {
			t.Fatalf("%s: %d at first", addr, got)
		}
	}
	if got := len(l.clients); got != 3 {
		t.Errorf("%d clients kept, want 3 (loopback is not limited, so not kept)", got)
	}
	later := now.Add(clientExpiry)
	if got := admitted(t, l, "198.51.100.1", later); got != http.StatusOK {
		t.Fatalf("refused: %d", got)
	}
	if got := len(l.clients); got != 1 {
		t.Errorf("%d clients kept after %v idle, want 1 (the new one)", got, clientExpiry)
	}
}

// TestClientTableFill is a fill of the client table: one request from each of
// 66,000 addresses, more than the table holds. Every new address is
// served (the clients seen least recently make room), the table stays
// within its bound, and a client that keeps asking meanwhile keeps its
// bucket: over its rate, it stays refused.
func TestClientTableFill(t *testing.T) {
	l := newClients(Quota{Rate: 1, Burst: 2}, Quota{})
	now := time.Now()
	const busy = "198.51.100.200"
	for range 2 {
		if got := admitted(t, l, busy, now); got != http.StatusOK {
			t.Fatalf("the busy client's burst: %d", got)
		}
	}
	refused := 0
	for i := range 66_000 {
		addr := fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255)
		if got := admitted(t, l, addr, now); got != http.StatusOK {
			refused++
		}
		if i%1000 == 0 && admitted(t, l, busy, now) != http.StatusTooManyRequests {
			t.Fatalf("after %d new addresses the busy client, over its rate, was served: its bucket was forgotten", i)
		}
	}
	if refused > 0 {
		t.Errorf("%d of 66,000 new addresses refused, want none", refused)
	}
	if got := len(l.clients); got > maxClientKeys || got != l.lru.Len() {
		t.Errorf("%d clients in the table (%d in its order), want at most %d", got, l.lru.Len(), maxClientKeys)
	}
	if got := admitted(t, l, "203.0.113.9", now); got != http.StatusOK {
		t.Errorf("a new client after the fill: %d, want 200", got)
	}
}

// TestClientTableIPv6 fills a small table from the /64 networks of one
// /48 (65,536 of them): past half the table new networks count by their
// /56, past three quarters by their /48, so that the /48 ends as one
// client, held to one client's rate, and the table never fills.
func TestClientTableIPv6(t *testing.T) {
	l := newClients(Quota{Rate: 1, Burst: 1}, Quota{})
	l.max = 64
	now := time.Now()
	var statuses []int
	for i := range 1 << 16 {
		addr := fmt.Sprintf("2001:db8:7:%x::1", i)
		statuses = append(statuses, admitted(t, l, addr, now))
	}
	served := len(statuses) - len(slices.DeleteFunc(slices.Clone(statuses), func(s int) bool { return s == http.StatusOK }))
	// 32 /64s, then /56s until the table is 3/4 full (16 of them, each
	// the first of 256 /64s), then the one /48.
	if served != 32+16+1 {
		t.Errorf("%d of 65,536 /64 networks of one /48 served, want %d: 32 by their /64, 16 by their /56, then one /48", served, 32+16+1)
	}
	if got := len(l.clients); got > l.max*3/4+1 {
		t.Errorf("%d clients in a table of %d, want at most %d", got, l.max, l.max*3/4+1)
	}
	if got := admitted(t, l, "203.0.113.1", now); got != http.StatusOK {
		t.Errorf("an IPv4 client after the fill: %d, want 200", got)
	}
	if got := admitted(t, l, "2001:db8:8::1", now); got != http.StatusOK {
		t.Errorf("a client of another /48 after the fill: %d, want 200", got)
	}
}

// TestClientTableInFlight checks the one case a new client is refused: a
// table full of clients with requests in flight.
func TestClientTableInFlight(t *testing.T) {
	l := newClients(Quota{Concurrent: 1}, Quota{})
	l.max = 4
	now := time.Now()
	for i := range 4 {
		if _, p := l.admit(fmt.Sprintf("203.0.113.%d", i), now); p != nil {
			t.Fatalf("client %d: %v", i, p)
		}
	}
	if got := admitted(t, l, "203.0.113.99", now); got != http.StatusServiceUnavailable {
		t.Errorf("a new client beside 4 in flight in a table of 4: %d, want 503", got)
	}
}

// TestTrustedProxies checks whose address a request counts against: the
// connection's, or, from a trusted proxy only, the nearest address in its
// X-Forwarded-For that is not a trusted proxy's.
func TestTrustedProxies(t *testing.T) {
	trusted, err := ParseProxies("127.0.0.1, 10.1.0.0/16,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("fd00::/8")}
	if !slices.Equal(trusted, want) {
		t.Errorf("ParseProxies: %v, want %v", trusted, want)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.example", "10.0.0"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q): no error", bad)
		}
	}
	tests := []struct {
		name, remote, xff string
		trusted           []netip.Prefix
		want              string
	}{
		{"no trusted proxy: the header is ignored", "127.0.0.1:5000", "203.0.113.7", nil, "127.0.0.1"},
		{"a trusted proxy", "127.0.0.1:5000", "203.0.113.7", trusted, "203.0.113.7"},
		{"a chain of trusted proxies", "10.1.2.3:5000", "203.0.113.7, 10.1.9.9", trusted, "203.0.113.7"},
		{"a client's forged entry before the proxy's", "127.0.0.1:5000", "198.51.100.1, 203.0.113.7", trusted, "203.0.113.7"},
		{"a proxy not trusted", "10.2.0.1:5000", "203.0.113.7", trusted, "10.2.0.1"},
		{"private ranges are not trusted unless named", "192.168.1.1:5000", "203.0.113.7", trusted, "192.168.1.1"},
		{"IPv6", "[fd00::1]:5000", "2001:db8::5", trusted, "2001:db8::5"},
		{"a trusted proxy without the header", "127.0.0.1:5000", "", trusted, "127.0.0.1"},
		{"garbage in the header", "127.0.0.1:5000", "<script>", trusted, "127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := New(Config{TrustedProxies: tt.trusted})
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = tt.remote
			if tt.xff != "" {
				req.Header.Set(echo.HeaderXForwardedFor, tt.xff)
			}
			if got := g.IPExtractor()(req); got != tt.want {
				t.Errorf("client %q, want %q", got, tt.want)
			}
		})
	}
}
