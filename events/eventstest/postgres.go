package eventstest

import (
	"testing"

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
