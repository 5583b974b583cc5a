package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeSaysWhenItShutsDown: Ctrl-C stops herd serve cleanly, and its
// log says so: the API stops taking requests, then the event log closes.
func TestServeSaysWhenItShutsDown(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{"--log-level", "info"}})
	if code, err := srv.signal(syscall.SIGINT, 30*time.Second); err != nil || code != 0 {
		t.Fatalf("herd serve after Ctrl-C: exit %d, %v; want 0", code, err)
	}
	out := srv.output.String()
	shutting, stopped := strings.Index(out, "shutting down: the API takes no new requests"), strings.Index(out, "herd stopped: the event log is closed")
	if shutting < 0 || stopped < shutting {
		t.Errorf("herd serve's log does not say it shut down, then stopped:\n%s", out)
	}
}
