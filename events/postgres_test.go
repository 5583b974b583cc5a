package events_test

import (
	"database/sql"
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

// openPostgresWithSQL opens the log in a fresh database of the test's
// own, and a plain connection pool to the same database for what a test
// does beside herd (another writer, an operator's statement).
func openPostgresWithSQL(t *testing.T) (events.Log, *sql.DB) {
	t.Helper()
	url := pgtest.URL(t)
	log, err := events.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return log, db
}

// TestPostgresLogContract runs the log's contract against PostgreSQL.
func TestPostgresLogContract(t *testing.T) {
	eventstest.RunLogContract(t, openPostgres)
}
