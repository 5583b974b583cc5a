package watch_test

import (
	"testing"
	"time"

	"herd/events"
	"herd/events/eventstest"
	"herd/projections/watch"
)

// With an hour between fallback polls, only the commit signal can explain
// the hub seeing a write within the wait.
func TestACommitWakesTheHubAtOnce(t *testing.T) {
	f := newFixture(t, watch.Config{PollInterval: time.Hour})
	f.start(t)
	for i, name := range []string{"web-01", "web-02", "web-03"} {
		n := f.do(t, name, register(name, nil))
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.hub.Position() >= n.ResourceVersion },
			"write %d: the hub reaches position %d; it is at %d", i, n.ResourceVersion, f.hub.Position())
	}
}

func TestAnIdleHubWritesNothing(t *testing.T) {
	f := newFixture(t, watch.Config{PollInterval: time.Millisecond})
	f.do(t, "web-01", register("web-01", nil))
	f.start(t)

	other, err := events.OpenDB(t.Context(), dbPath(t, f), events.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	before, reads := eventstest.DataVersion(t, conn), watch.Reads(f.hub)
	// The probe holds the write lock meanwhile: a poll that wanted it
	// would wait behind it, and the polls would stop.
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return watch.Reads(f.hub) >= reads+20 },
		"twenty fallback polls while another connection holds the write lock")
	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if after := eventstest.DataVersion(t, conn); after != before {
		t.Errorf("data_version went from %d to %d over twenty idle polls: the idle hub wrote", before, after)
	}
	// The probe sees writes: one more command moves it.
	f.do(t, "web-02", register("web-02", nil))
	if after := eventstest.DataVersion(t, conn); after == before {
		t.Errorf("data_version stayed %d after a write: the probe sees nothing", before)
	}
}

// dbPath is the file f's store uses.
func dbPath(t *testing.T, f *fixture) string {
	t.Helper()
	var seq int
	var name, file string
	if err := f.store.DB().QueryRowContext(t.Context(), "PRAGMA database_list").Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}
