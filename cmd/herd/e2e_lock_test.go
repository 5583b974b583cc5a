package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"herd/events"
)

// TestOfflineCommandsRefuseAServedDataDir: a rebuild or a vacuum of the
// database under a running herd serve would rewrite its views behind its
// back, so both refuse and name the serve; the read-only --verify stays
// safe while serving.
func TestOfflineCommandsRefuseAServedDataDir(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	db := filepath.Join(srv.DataDir, "herd.db")
	holder := fmt.Sprintf("herd serve (pid %d) holds %s", srv.cmd.Process.Pid, db)

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"replay", []string{"replay", "--data-dir", srv.DataDir}, holder + "; stop it first, or use --verify, which is safe while serving"},
		{"vacuum", []string{"vacuum", "--data-dir", srv.DataDir}, holder + "; stop it first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := herd(t, nil, tt.args...)
			if res.Code == 0 {
				t.Fatalf("herd %s while serving: exit 0, want a refusal\nstdout:\n%s", tt.name, res.Stdout)
			}
			if !strings.Contains(res.Stderr, tt.want) {
				t.Errorf("herd %s while serving said %q, want %q", tt.name, res.Stderr, tt.want)
			}
		})
	}
	t.Run("replay --verify", func(t *testing.T) {
		res := mustHerd(t, "replay", "--verify", "--data-dir", srv.DataDir)
		if !strings.Contains(res.Stdout, "the live views equal a rebuild") {
			t.Errorf("replay --verify said %q", res.Stdout)
		}
	})
	// A clean stop gives the lock back: the rebuild runs now.
	srv.stop()
	mustHerd(t, "replay", "--data-dir", srv.DataDir)
}

// TestServeRefusesADataDirARebuildHolds: serve must not start on a
// database that an offline rebuild is rewriting. The test process holds
// the lock as `herd replay` would.
func TestServeRefusesADataDirARebuildHolds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lock, err := events.LockDataDir(dir, "herd replay")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	p := spawn(t, "http://"+freeAddr(t), dir, nil, "serve", "--data-dir", dir, "--listen", freeAddr(t))
	code, err := p.wait(readyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if code == 0 {
		t.Fatal("serve started on a data directory a rebuild holds: exit 0")
	}
	want := fmt.Sprintf("herd replay (pid %d) holds %s", os.Getpid(), filepath.Join(dir, "herd.db"))
	if !strings.Contains(p.output.String(), want) {
		t.Errorf("serve said:\n%s\nwant it to name the holder: %q", p.output.String(), want)
	}
}
