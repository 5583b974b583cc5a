package main

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestServeReadsTheTokenFileAgainOnSIGHUP: an operator adds or revokes a
// token without restarting herd, and a file that no longer parses leaves
// the tokens as they were, with the reason in the log.
func TestServeReadsTheTokenFileAgainOnSIGHUP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens := writeTokens(t, dir, "old-token,alice,1,herd:admins")
	srv := startServe(t, serveOptions{Args: []string{"--token-auth-file", tokens, "--log-level", "info"}})
	oldClient := newTokenClient(t, srv.URL, "", "old-token")
	newClient := newTokenClient(t, srv.URL, "", "new-token")
	const path = "/api/v1/namespaces/default/configmaps"

	hup := func() {
		t.Helper()
		if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	logged := func(parts ...string) func() error {
		return func() error {
			for line := range strings.SplitSeq(srv.output.String(), "\n") {
				if containsAll(line, parts) {
					return nil
				}
			}
			return fmt.Errorf("no line of serve's output holds %q:\n%s", parts, srv.output.String())
		}
	}

	if err := os.WriteFile(tokens, []byte("new-token,alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hup()
	eventually(t, readyTimeout, logged("the token file does not parse: herd keeps the tokens it had", "SIGHUP", "line 1"))
	if code, body := oldClient.do(t, http.MethodGet, path, "", "", nil); code != http.StatusOK {
		t.Errorf("the old token after a broken file: %d %s, want 200", code, body)
	}

	writeTokens(t, dir, "new-token,alice,1,herd:admins")
	hup()
	eventually(t, readyTimeout, logged("the token file was read again", "SIGHUP", `"tokens": 1`))
	if code, body := newClient.do(t, http.MethodGet, path, "", "", nil); code != http.StatusOK {
		t.Errorf("the new token: %d %s, want 200", code, body)
	}
	if code, body := oldClient.do(t, http.MethodGet, path, "", "", nil); code != http.StatusUnauthorized {
		t.Errorf("the revoked token: %d %s, want 401", code, body)
	}
	srv.stop()
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
