package main

import (
	"fmt"
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

// TestTheDemoSaysWhereToLook: make run's herd names the address it really
// listens on, which HERD_LISTEN may have moved from the default.
func TestTheDemoSaysWhereToLook(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	srv := startServe(t, serveOptions{Listen: addr, Env: []string{"HERD_LISTEN=" + addr}, Args: []string{"--log-level", "info", "--demo", "1"}})
	eventually(t, readyTimeout, func() error {
		if want := "look at the fleet: kubectl --server http://" + addr + " get nodes"; !strings.Contains(srv.output.String(), want) {
			return fmt.Errorf("herd serve --demo did not say %q:\n%s", want, srv.output.String())
		}
		return nil
	})
}
