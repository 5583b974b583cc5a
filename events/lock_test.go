package events_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"herd/events"
)

func TestLockDataDirRefusesASecondHolderAndNamesTheFirst(t *testing.T) {
	dir := t.TempDir()
	first, err := events.LockDataDir(dir, "herd serve")
	if err != nil {
		t.Fatalf("first lock: %v", err)
	}
	_, err = events.LockDataDir(dir, "herd replay")
	var locked *events.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second lock: got %v, want a *LockedError", err)
	}
	if locked.PID != os.Getpid() || locked.Role != "herd serve" {
		t.Errorf("holder: got pid %d role %q, want pid %d role %q", locked.PID, locked.Role, os.Getpid(), "herd serve")
	}
	want := "herd serve (pid " + strconv.Itoa(os.Getpid()) + ") holds " + filepath.Join(dir, "herd.db")
	if err.Error() != want {
		t.Errorf("message: got %q, want %q", err.Error(), want)
	}
	if err := first.Release(); err != nil {
		t.Fatalf("release: %v", err)
	}
	again, err := events.LockDataDir(dir, "herd vacuum")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	if err := again.Release(); err != nil {
		t.Fatalf("release: %v", err)
	}
}

func TestLockedErrorWithoutAHolderSaysAnotherHerd(t *testing.T) {
	tests := []struct {
		name string
		err  events.LockedError
		want string
	}{
		{"named", events.LockedError{Database: "d/herd.db", PID: 7, Role: "herd serve"}, "herd serve (pid 7) holds d/herd.db"},
		{"not yet written", events.LockedError{Database: "d/herd.db"}, "another herd holds d/herd.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLockDataDirIsFreedWhenItsHolderIsKilled: the kernel drops a killed
// process's lock, so SIGKILL leaves no stale lock for the operator to
// remove by hand.
func TestLockDataDirIsFreedWhenItsHolderIsKilled(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHoldLockHelper$")
	cmd.Env = append(os.Environ(), "HERD_LOCK_HELPER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("helper: got %q, %v; want \"locked\"", line, err)
	}
	_, err = events.LockDataDir(dir, "herd replay")
	var locked *events.LockedError
	if !errors.As(err, &locked) || locked.PID != cmd.Process.Pid || locked.Role != "herd serve" {
		t.Errorf("while the helper holds it: got %v, want herd serve (pid %d)", err, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error says so
	l, err := events.LockDataDir(dir, "herd replay")
	if err != nil {
		t.Fatalf("after SIGKILL of the holder: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestHoldLockHelper is the killed holder of the test above: it takes the
// lock, says so, and waits to be killed.
func TestHoldLockHelper(t *testing.T) {
	dir := os.Getenv("HERD_LOCK_HELPER_DIR")
	if dir == "" {
		t.Skip("the helper process of TestLockDataDirIsFreedWhenItsHolderIsKilled")
	}
	if _, err := events.LockDataDir(dir, "herd serve"); err != nil {
		t.Fatal(err)
	}
	_, _ = os.Stdout.WriteString("locked\n")
	select {} // until killed
}
