package eventstest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// OpenPostgres opens the log in the PostgreSQL database at url for the
// test, as one herd process would, and closes it when the test ends.
// Each call is another process sharing the database.
func OpenPostgres(t testing.TB, url string) *events.Postgres {
	t.Helper()
	l, err := events.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// SameRecords requires two logs to hold the same records, as readers see
// them, and returns them: a log copied from one engine to the other.
func SameRecords(t testing.TB, want, got events.Log) []events.Record {
	t.Helper()
	a, err := want.ReadAfter(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := got.ReadAfter(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("records (-SQLite +PostgreSQL):\n%s", diff)
	}
	return a
}
