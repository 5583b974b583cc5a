package events_test

import (
	"os"
	"testing"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// TestMain stops the tests' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// openPostgres opens the log in a fresh database of the test's own.
func openPostgres(t *testing.T) (events.Log, func(t *testing.T) events.Log) {
	url := pgtest.URL(t)
	open := func(t *testing.T) events.Log {
		l, err := events.OpenPostgres(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		return l
	}
	return open(t), open
}

// TestPostgresLogContract runs the log's contract against PostgreSQL.
func TestPostgresLogContract(t *testing.T) {
	eventstest.RunLogContract(t, openPostgres)
}
