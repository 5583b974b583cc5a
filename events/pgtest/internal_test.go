package pgtest

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestMissingPostgreSQLSaysWhyAndHowToInstall(t *testing.T) {
	pattern := filepath.Join(t.TempDir(), "*", "bin", "initdb")
	_, err := findBinDir(pattern)
	var missing notInstalledError
	if !errors.As(err, &missing) {
		t.Fatalf("no initdb at %s: %v; want notInstalledError", pattern, err)
	}
	for _, want := range []string{"not installed", pattern, "make deps"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

func TestVersion15IsPreferred(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"13", "15", "17"} {
		bin := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, "initdb"), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pattern := filepath.Join(root, "*", "bin", "initdb")
	if dir, err := findBinDir(pattern); err != nil || dir != filepath.Join(root, "15", "bin") {
		t.Errorf("findBinDir: %s, %v; want version 15's", dir, err)
	}
	if err := os.RemoveAll(filepath.Join(root, "15")); err != nil {
		t.Fatal(err)
	}
	if dir, err := findBinDir(pattern); err != nil || dir != filepath.Join(root, "17", "bin") {
		t.Errorf("findBinDir without 15: %s, %v; want the newest, 17", dir, err)
	}
}

func TestStaleClustersOfGoneProcessesAreRemoved(t *testing.T) {
	gone := exec.CommandContext(t.Context(), "true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	stale := filepath.Join(tmp, dirPrefix+strconv.Itoa(gone.Process.Pid)+"-1")
	mine := filepath.Join(tmp, dirPrefix+strconv.Itoa(os.Getpid())+"-1")
	other := filepath.Join(tmp, "herd-pgtest-x")
	for _, dir := range []string{stale, mine, other} {
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	own, err := clusterOwner()
	if err != nil {
		t.Fatal(err)
	}
	removeStale(tmp, t.TempDir(), own)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s of a process that is gone: %v; want it removed", stale, err)
	}
	for _, dir := range []string{mine, other} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s: %v; want it kept", dir, err)
		}
	}
}

func TestDatabaseNamesFitPostgreSQL(t *testing.T) {
	if got := databaseName("TestA/sub-Test_2", 7); got != "pgtest_7_testa_sub_test_2" {
		t.Errorf("databaseName: %q", got)
	}
	if got := databaseName(strings.Repeat("x", 100), 1); len(got) != 63 {
		t.Errorf("a long test's database name is %d bytes; PostgreSQL keeps 63", len(got))
	}
}

func TestStartOnATakenPortSaysSo(t *testing.T) {
	s := Server(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = taken.Close() }()
	if err := s.Stop("fast"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Start(); err != nil {
			t.Error(err)
		}
	})
	other := &Instance{bin: s.bin, dir: s.dir, own: s.own, port: taken.Addr().(*net.TCPAddr).Port}
	if err := other.start(); !errors.Is(err, errPortInUse) {
		t.Errorf("start on a taken port: %v; want errPortInUse", err)
	}
}

func TestTroubleInTheLogIsFound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "postgres.log")
	log := `2026-11-30 12:00:00 UTC [1] LOG:  database system is ready to accept connections
2026-11-30 12:01:00 UTC [7] FATAL:  terminating connection due to administrator command
2026-11-30 12:02:00 UTC [9] PANIC:  could not write to file "pg_wal/xlogtemp.9": No space left on device
2026-11-30 12:02:00 UTC [1] LOG:  server process (PID 9) was terminated by signal 6: Aborted
`
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	got := troubleIn(path)
	if len(got) != 2 || !strings.Contains(got[0], "No space left") || !strings.Contains(got[1], "signal 6") {
		t.Errorf("troubleIn: %q; want the PANIC and the terminated process, nothing else", got)
	}
	if got := troubleIn(filepath.Join(t.TempDir(), "none.log")); got != nil {
		t.Errorf("troubleIn of no log: %q; want none", got)
	}
}
