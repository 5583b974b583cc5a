package main

import (
	"strings"
	"testing"
)

// TestServeWithTokensWithoutTLSSaysKubectlWillNotAuthenticate: kubectl
// sends no bearer token over plain HTTP and only says "You must be
// logged in to the server", so a herd with tokens and no TLS says why at
// start — on loopback too, where it still serves.
func TestServeWithTokensWithoutTLSSaysKubectlWillNotAuthenticate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens := writeTokens(t, dir, "admin-token,alice,1,herd:admins")
	srv := startServe(t, serveOptions{Args: []string{"--token-auth-file", tokens}})
	// Stopped, serve's output is complete: the warning is said as the
	// token file is read, before serve is ready.
	srv.stop()
	if !strings.Contains(srv.output.String(), "kubectl will not authenticate over plain HTTP") {
		t.Errorf("serve's output lacks the warning about kubectl over plain HTTP:\n%s", srv.output.String())
	}
	if !strings.Contains(srv.output.String(), "--tls-cert-file") {
		t.Errorf("the warning does not name --tls-cert-file:\n%s", srv.output.String())
	}
}

// TestServeRefusesTokensOverPlainHTTPOffLoopback: a token file without
// TLS on a non-loopback address would send the tokens across the network
// in the clear; herd refuses unless told it is on purpose. The address is
// a documentation address (TEST-NET-1): herd refuses before it binds.
func TestServeRefusesTokensOverPlainHTTPOffLoopback(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens := writeTokens(t, dir, "admin-token,alice,1,herd:admins")
	res := herd(t, nil, "serve", "--data-dir", dir, "--listen", "192.0.2.1:8080", "--token-auth-file", tokens)
	if res.Code == 0 {
		t.Fatal("serve started with tokens over plain HTTP on a non-loopback address")
	}
	for _, want := range []string{"--listen 192.0.2.1:8080 is not a loopback address", "--token-auth-file", "--tls-cert-file", "--insecure-allow-http-tokens"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr %q lacks %q", res.Stderr, want)
		}
	}
}
