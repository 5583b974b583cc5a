package loadgen

import (
	"crypto/tls"
	"net"
	"net/http"
	"time"
)

// newTransport carries every request of a run over at most perServer TCP
// connections to each of the servers, all kept open between requests, so
// that "64 connections" is 64 connections: HTTP/1.1 only, since HTTP/2
// would multiplex them onto one. Without allowRemote it connects to
// loopback addresses only.
func newTransport(cfg Config, perServer int) *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !cfg.AllowRemote {
		d.Control = loopbackOnly
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	t := &http.Transport{
		DialContext:         d.DialContext,
		MaxConnsPerHost:     perServer,
		MaxIdleConnsPerHost: perServer,
		MaxIdleConns:        perServer * len(cfg.Servers),
		IdleConnTimeout:     90 * time.Second,
		Protocols:           &protocols,
	}
	if cfg.InsecureSkipVerify {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // asked for with --insecure-skip-verify
	}
	return t
}
