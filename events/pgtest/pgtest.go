package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// shared is this test binary's server, started by the first Server call.
var shared struct {
	sync.Mutex
	tried bool
	inst  *Instance
	err   error
}

// databases numbers the databases URL creates, which keeps their names
// apart.
var databases atomic.Int64

// Server returns this test binary's PostgreSQL server, starting it if no
// test has yet. When PostgreSQL is not installed it skips the test, or
// fails it if HERD_REQUIRE_POSTGRES=1; any other failure to start fails it.
func Server(t testing.TB) *Instance {
	t.Helper()
	shared.Lock()
	if !shared.tried {
		shared.tried = true
		shared.inst, shared.err = start()
	}
	inst, err := shared.inst, shared.err
	shared.Unlock()
	var missing notInstalledError
	if errors.As(err, &missing) && os.Getenv("HERD_REQUIRE_POSTGRES") != "1" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// URL returns the URL, postgres://postgres@127.0.0.1:PORT/NAME?sslmode=disable,
// of a new, empty database on this test binary's server, made for this
// test and dropped, whoever is still connected to it, when the test ends.
// It skips or fails the test as Server does.
func URL(t testing.TB) string {
	t.Helper()
	db, err := NewDatabase(t)
	if err != nil {
		t.Fatal(err)
	}
	return db.URL
}

// Database is a database on this test binary's server, made for one test
// or one part of a test.
type Database struct {
	// URL is the database's postgres:// URL.
	URL string

	name    string
	server  *Instance
	dropped atomic.Bool
}

// NewDatabase makes a new, empty database on this test binary's server,
// starting the server as Server does, and drops it when t ends unless
// Drop did so first. A test that makes many databases — one a scenario —
// drops each as soon as its part is done, so that they do not pile up on
// the shared server until the whole test ends. Unlike URL it reports a
// failure to make the database as an error, so that it may be called
// from a goroutine other than t's own once Server(t) has returned.
func NewDatabase(t testing.TB) (*Database, error) {
	t.Helper()
	s := Server(t)
	db := &Database{name: databaseName(t.Name(), databases.Add(1)), server: s}
	if err := s.exec("CREATE DATABASE " + db.ident()); err != nil {
		return nil, fmt.Errorf("pgtest: creating database %s: %w", db.name, err)
	}
	db.URL = urlOf(s.port, db.name)
	t.Cleanup(func() {
		if err := db.Drop(); err != nil {
			t.Error(err)
		}
	})
	return db, nil
}

// Drop drops the database, whoever is still connected to it. Dropping it
// again does nothing.
func (db *Database) Drop() error {
	if db.dropped.Swap(true) {
		return nil
	}
	if err := db.server.exec("DROP DATABASE IF EXISTS " + db.ident() + " WITH (FORCE)"); err != nil {
		return fmt.Errorf("pgtest: dropping database %s: %w", db.name, err)
	}
	return nil
}

func (db *Database) ident() string { return pgx.Identifier{db.name}.Sanitize() }

// Private starts a PostgreSQL server of the test's own, for a test that
// stops, kills or restarts it (the shared server of Server serves every
// other test at once), and returns it with the URL of a database on it.
// The server is stopped and its directory removed when the test ends. It
// skips or fails the test as Server does.
func Private(t testing.TB) (*Instance, string) {
	t.Helper()
	inst, err := start()
	var missing notInstalledError
	if errors.As(err, &missing) && os.Getenv("HERD_REQUIRE_POSTGRES") != "1" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := inst.Stop("immediate"); err != nil && !errors.Is(err, errNotRunning) {
			t.Errorf("pgtest: %v", err)
		}
		_ = os.RemoveAll(inst.dir)
	})
	if err := inst.exec("CREATE DATABASE herd"); err != nil {
		t.Fatalf("pgtest: creating database herd: %v", err)
	}
	return inst, urlOf(inst.port, "herd")
}

// Run runs the tests of m, then stops the server if one was started and
// removes its directory, and returns m's exit code. A package whose tests
// use pgtest calls it from TestMain: os.Exit(pgtest.Run(m)).
func Run(m *testing.M) int {
	code := m.Run()
	shared.Lock()
	inst := shared.inst
	shared.tried, shared.inst, shared.err = true, nil, errors.New("pgtest: Run has stopped the server")
	shared.Unlock()
	if inst != nil {
		if code != 0 {
			// A server that crashed or ran out of room fails many tests
			// at once, each saying only that it lost its connection.
			if lines := troubleIn(filepath.Join(inst.dir, "postgres.log")); len(lines) > 0 {
				fmt.Fprintf(os.Stderr, "pgtest: what the PostgreSQL server's log says went wrong:\n%s\n", strings.Join(lines, "\n"))
			}
		}
		if err := inst.Stop("fast"); err != nil && !errors.Is(err, errNotRunning) {
			fmt.Fprintln(os.Stderr, err)
		}
		if err := os.RemoveAll(inst.dir); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// trouble marks the lines of a server's log that say it crashed, was
// killed or ran out of disk or memory.
var trouble = []string{"PANIC:", "terminated by signal", "was terminated", "No space left", "out of memory", "could not write", "could not extend"}

// troubleIn is the lines of the log at path that trouble marks, the last
// 40 at most; none when the log cannot be read.
func troubleIn(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var lines []string
	for line := range strings.Lines(string(b)) {
		for _, mark := range trouble {
			if strings.Contains(line, mark) {
				lines = append(lines, strings.TrimRight(line, "\n"))
				break
			}
		}
	}
	return lines[max(0, len(lines)-40):]
}

// exec runs one statement in the server's postgres database.
func (s *Instance) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.AdminURL())
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, sql)
	return errors.Join(err, conn.Close(ctx))
}

// databaseName is the n-th database's name: n, then as much of the test's
// name as fits in PostgreSQL's 63 bytes, lower case, other than [a-z0-9]
// made _.
func databaseName(test string, n int64) string {
	name := fmt.Sprintf("pgtest_%d_", n) + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(test))
	return name[:min(len(name), 63)]
}
