package reconcilers_test

import (
	"os"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/reconcilers"
)

// TestMain stops the tests' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestTheDispatcherFollowsAPostgreSQLLog: on PostgreSQL the dispatcher
// hands a reconciler the events appended through its own process and
// through another sharing the database, and keeps its group's position
// in the database.
func TestTheDispatcherFollowsAPostgreSQLLog(t *testing.T) {
	url := pgtest.URL(t)
	open := func() *events.Postgres { return eventstest.OpenPostgres(t, url) }
	log, other := open(), open()
	f := newFakeReconciler("pg")
	m, err := reconcilers.NewManager(reconcilers.Params{
		Config: config(), Reconcilers: []reconcilers.Reconciler{f}, Log: log,
		Clock: clocktesting.NewFakeClock(t0), Logger: zap.NewNop(), Metrics: reconcilers.NewMetrics(prometheus.NewRegistry()),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(t, m) })

	appendPG(t, log, "node/here")
	last := appendPG(t, other, "node/there")
	eventually(t, func() bool { return f.Count("node/here") > 0 && f.Count("node/there") > 0 },
		"the reconciler is called for both appended events; it was called for %v", f.seen())

	saved := func() int64 {
		pos, err := log.GroupPosition(t.Context(), reconcilers.ConsumerGroup, "")
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	// Saved while it runs, within a second of its last ack.
	eventually(t, func() bool { return saved() == last }, "the dispatcher's group is saved at %d", last)
	stop(t, m)
	if pos := saved(); pos != last {
		t.Errorf("the dispatcher's group stands at %d after it stopped, want %d", pos, last)
	}
}

// appendPG appends one event to a new stream through l and returns its
// position.
func appendPG(t *testing.T, l events.Log, stream string) int64 {
	t.Helper()
	tx, err := l.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	recs, err := tx.Append(t.Context(), stream, 0, events.Metadata{}, t0, events.NewEvent{Type: happened, Payload: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return recs[0].Position
}
