package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Standby makes a streaming standby of s (pg_basebackup of the running
// server, started on a port of its own) and makes s commit synchronously
// with it: a commit s acknowledges is on the standby's disk too
// (synchronous_standby_names '*', synchronous_commit on). It returns once
// the standby is streaming in sync. The standby is stopped and removed
// when the test ends.
func (s *Instance) Standby(t testing.TB) *Instance {
	t.Helper()
	dir, err := os.MkdirTemp(os.TempDir(), fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	sb := &Instance{bin: s.bin, dir: dir, own: s.own}
	t.Cleanup(func() {
		if err := sb.Stop("immediate"); err != nil && !errors.Is(err, errNotRunning) {
			t.Errorf("pgtest: standby: %v", err)
		}
		_ = os.RemoveAll(dir)
	})
	if s.own.cred != nil {
		if err := os.Chown(dir, s.own.uid, s.own.gid); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// -R writes standby.signal and the primary's connection settings;
	// a fast checkpoint starts the copy at once rather than at the next
	// scheduled one (minutes away).
	out, err := s.own.command(ctx, dir, filepath.Join(s.bin, "pg_basebackup"),
		"-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", "postgres",
		"-D", sb.DataDir(), "-R", "-X", "stream", "--checkpoint=fast", "--no-sync").CombinedOutput()
	if err != nil {
		t.Fatalf("pgtest: pg_basebackup: %v:\n%s", err, out)
	}
	for range startAttempts {
		if sb.port, err = freePort(); err != nil {
			break
		}
		if err = sb.start(); !errors.Is(err, errPortInUse) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := s.exec("ALTER SYSTEM SET synchronous_standby_names = '*'"); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if err := s.exec("SELECT pg_reload_conf()"); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		state, err := s.queryString("SELECT COALESCE((SELECT sync_state FROM pg_stat_replication LIMIT 1), '')")
		if err == nil && state == "sync" {
			return sb
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgtest: the standby is not streaming in sync after a minute (%q, %v)", state, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Promote makes a standby the primary and returns once it takes writes.
func (s *Instance) Promote() error {
	if err := s.exec("SELECT pg_promote(true, 60)"); err != nil {
		return fmt.Errorf("pgtest: promote: %w", err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		inRecovery, err := s.queryString("SELECT pg_is_in_recovery()::text")
		if err == nil && inRecovery == "false" {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("pgtest: promote: still in recovery after a minute: %w", err)
			}
			return errors.New("pgtest: promote: still in recovery after a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// queryString runs a query of one text value in the postgres database.
func (s *Instance) queryString(sql string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.AdminURL())
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	var v string
	err = conn.QueryRow(ctx, sql).Scan(&v)
	return v, err
}
