package events_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"herd/events"
)

// TestOpenChecksAnExistingFile: a new file is created unchecked; an
// existing sound one is checked whole; a check cut short by CheckTimeout
// still opens the file and says so; a log a newer herd migrated further
// is refused as such.
func TestOpenChecksAnExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), events.DatabaseFileName)
	open := func(timeout time.Duration) (*events.Store, error) {
		t.Helper()
		return events.Open(t.Context(), events.Config{Path: path, CheckTimeout: timeout}, nil)
	}
	s, err := open(0)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Check(); c.Existing {
		t.Errorf("a new file: %+v, want it unchecked", c)
	}
	mustClose(t, s)

	s, err = open(0)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Check(); !c.Existing || !c.Complete {
		t.Errorf("an existing sound file: %+v, want it checked whole", c)
	}
	mustClose(t, s)

	s, err = open(time.Nanosecond)
	if err != nil {
		t.Fatalf("a check cut short must not refuse a sound file: %v", err)
	}
	if c := s.Check(); !c.Existing || c.Complete {
		t.Errorf("a check with no time to run: %+v, want it said to be partial", c)
	}
	if _, err := s.DB().ExecContext(t.Context(), `INSERT INTO schema_migrations (component, version, name, checksum) VALUES ('events', 9999, '9999_future.sql', 'x')`); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)

	_, err = open(0)
	d, ok := errors.AsType[*events.DamagedError](err)
	if !ok || d.Kind != events.DamageNewer || d.Path != path {
		t.Fatalf("a log at a newer schema: %v, want a DamagedError of kind DamageNewer", err)
	}
}

func mustClose(t *testing.T, s *events.Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
