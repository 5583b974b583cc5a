package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// ErrRemote is the refusal of a server outside the loopback networks
// without --allow-remote: a load generator pointed at the wrong URL must
// not flood someone's production herd.
var ErrRemote = errors.New("refusing to load a herd that is not on this machine")

// CheckTarget resolves server's host and refuses it, with ErrRemote, unless
// every address it resolves to is in 127.0.0.0/8 or is ::1. It sends
// nothing to server.
func CheckTarget(ctx context.Context, server string) error {
	u, err := url.Parse(server)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("--server %q: want a URL such as http://127.0.0.1:8080", server)
	}
	host := u.Hostname()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("--server %s: resolve %s: %w", server, host, err)
	}
	for _, a := range addrs {
		if !loopback(a) {
			return fmt.Errorf("%w: --server %s resolves to %s, outside 127.0.0.0/8 and ::1 (give --allow-remote to load it anyway)", ErrRemote, server, a.Unmap())
		}
	}
	return nil
}

// loopback is true for 127.0.0.0/8 and ::1, and for 127/8 written as an
// IPv4-mapped IPv6 address.
func loopback(a netip.Addr) bool {
	return a.Unmap().IsLoopback()
}

// loopbackOnly is a net.Dialer Control that refuses to connect anywhere
// but loopback: the name checked by CheckTarget could resolve elsewhere
// by the time a connection is made.
func loopbackOnly(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot tell where %s is", ErrRemote, address)
	}
	if !loopback(ap.Addr()) {
		return fmt.Errorf("%w: %s is outside 127.0.0.0/8 and ::1", ErrRemote, address)
	}
	return nil
}
