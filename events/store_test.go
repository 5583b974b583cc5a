package events_test

import (
	"path/filepath"
	"testing"
	"time"

	"herd/events"
	"herd/events/eventstest"
)

// testPollInterval keeps subscription tests fast: watermill polls on the
// wall clock.
const testPollInterval = 5 * time.Millisecond

// openSQLite opens a log in a file under t.TempDir() (":memory:" would
// give every pooled connection its own database).
func openSQLite(t *testing.T) (*events.Store, func(t *testing.T) *events.Store) {
	path := filepath.Join(t.TempDir(), "herd.db")
	open := func(t *testing.T) *events.Store {
		t.Helper()
		s, err := events.Open(t.Context(), events.Config{Path: path, PollInterval: testPollInterval}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
		return s
	}
	return open(t), open
}

func TestStoreContract(t *testing.T) {
	eventstest.RunStoreContract(t, openSQLite)
}
