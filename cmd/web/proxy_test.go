package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"testing"
)

// TestTrustedProxies starts the server with and without -trusted-proxies
// naming loopback, and sends requests from loopback that each name a
// client in X-Forwarded-For: with the flag each named client has its own
// bucket (a burst of one), without it the header is ignored and the
// requests are loopback's, which has no limit.
func TestTrustedProxies(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []int
	}{
		{"trusted", []string{"-trusted-proxies", "127.0.0.0/8"}, []int{200, 429, 200, 429}},
		{"not trusted", nil, []int{200, 200, 200, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			args := append([]string{"-cache-dir", "off", "-memory", "2G", "-rate", "0.001", "-burst", "1"}, tt.args...)
			addr, _, exited := startServer(t, ctx, io.Discard, args...)
			defer stopServer(t, cancel, exited)
			var got []int
			for _, client := range []string{"203.0.113.1", "203.0.113.1", "203.0.113.2", "203.0.113.2"} {
				req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/?model=queens-4", nil)
				req.Header.Set("X-Forwarded-For", client)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				got = append(got, res.StatusCode)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("statuses %v, want %v", got, tt.want)
			}
		})
	}
}
