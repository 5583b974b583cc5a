package loadgen

import (
	"crypto/tls"
	"net"
	"net/http"
	"time"
)

// newTransport carries every request of a run over at most conns TCP
// connections, all kept open between requests, so that "64 connections"
// is 64 connections: HTTP/1.1 only, since HTTP/2 would multiplex them
// onto one. Without allowRemote it connects to loopback addresses only.
func newTransport(cfg Config, conns int) *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !cfg.AllowRemote {
		d.Control = loopbackOnly
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	t := &http.Transport{
		DialContext:         d.DialContext,
		MaxConnsPerHost:     conns,
		MaxIdleConnsPerHost: conns,
		MaxIdleConns:        conns,
		IdleConnTimeout:     90 * time.Second,
		Protocols:           &protocols,
	}
	if cfg.InsecureSkipVerify {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // asked for with --insecure-skip-verify
	}
	return t
}
