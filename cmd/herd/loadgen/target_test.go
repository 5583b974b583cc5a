package loadgen_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"herd/cmd/herd/loadgen"
)

func TestCheckTarget(t *testing.T) {
	tests := []struct {
		name, server string
		remote       bool
	}{
		{"IPv4 loopback", "http://127.0.0.1:8080", false},
		{"elsewhere in 127/8", "http://127.9.8.7:8080", false},
		{"IPv6 loopback", "http://[::1]:8080", false},
		{"localhost", "http://localhost:8080", false},
		{"a documentation address", "http://192.0.2.10:8080", true},
		{"an IPv6 address", "https://[2001:db8::1]:443", true},
		{"IPv4-mapped, not loopback", "http://[::ffff:192.0.2.10]:8080", true},
		{"any address", "http://0.0.0.0:8080", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := loadgen.CheckTarget(t.Context(), tt.server)
			if got := errors.Is(err, loadgen.ErrRemote); got != tt.remote {
				t.Errorf("CheckTarget(%s) = %v, want remote %v", tt.server, err, tt.remote)
			}
		})
	}
}

// TestARemoteHerdIsRefusedBeforeAnythingIsSent listens on one of this
// machine's own addresses outside loopback and checks that nobody
// connects.
func TestARemoteHerdIsRefusedBeforeAnythingIsSent(t *testing.T) {
	ip := nonLoopbackAddress(t)
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	defer func() { _ = ln.Close() }()
	var connections atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			_ = c.Close()
		}
	}()
	// A herd on loopback beside it, given first, hears nothing either:
	// the run is refused as a whole.
	local := newNodeStub(t)
	remote := "http://" + ln.Addr().String()
	for _, servers := range [][]string{{remote}, {local.srv.URL, remote}} {
		for _, style := range loadgen.Styles {
			cfg := tiny(servers[0], style)
			cfg.Servers = servers
			_, err := loadgen.Run(t.Context(), cfg, io.Discard)
			if !errors.Is(err, loadgen.ErrRemote) || !strings.Contains(err.Error(), "--allow-remote") || !strings.Contains(err.Error(), remote) {
				t.Errorf("%s against %v: %v, want a refusal that names %s and --allow-remote", style, servers, err, remote)
			}
		}
	}
	if n := connections.Load(); n != 0 {
		t.Errorf("%d connections reached the remote herd", n)
	}
	local.mu.Lock()
	defer local.mu.Unlock()
	if local.conns != 0 {
		t.Errorf("%d connections reached the herd beside it", local.conns)
	}
}

func nonLoopbackAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no address outside loopback")
	return ""
}
