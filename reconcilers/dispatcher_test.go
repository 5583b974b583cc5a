package reconcilers_test

import (
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
	"herd/reconcilers"
)

// recorder is a fakeReconciler that also records every position its
// KeysFor is handed, in order.
type recorder struct {
	*fakeReconciler
	mu        sync.Mutex
	positions []int64
}

func newRecorder(name string, keysFor func(events.Record) []string) *recorder {
	r := &recorder{fakeReconciler: newFakeReconciler(name)}
	r.keysFor = func(rec events.Record) []string {
		r.mu.Lock()
		r.positions = append(r.positions, rec.Position)
		r.mu.Unlock()
		if keysFor != nil {
			return keysFor(rec)
		}
		return []string{rec.Stream}
	}
	return r
}

func (r *recorder) seenPositions() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.positions)
}

// reads is how often the dispatcher has read the log.
func (h *harness) reads() float64 {
	h.t.Helper()
	families, err := h.reg.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() == "herd_reconciler_log_reads_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	h.t.Fatal("no herd_reconciler_log_reads_total")
	return 0
}

// groups lists the consumer groups with a position in the log.
func (h *harness) groups() []string {
	h.t.Helper()
	rows, err := h.store.DB().QueryContext(h.t.Context(), `SELECT consumer_group FROM consumer_offsets ORDER BY consumer_group`)
	if err != nil {
		h.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			h.t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

func TestEveryReconcilerSeesEveryEventOnceFromOneRead(t *testing.T) {
	tests := []struct {
		name        string
		reconcilers int
	}{
		{name: "one", reconcilers: 1},
		{name: "nine", reconcilers: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			var recs []*recorder
			var rs []reconcilers.Reconciler
			for i := range tt.reconcilers {
				r := newRecorder(fmt.Sprintf("r%d", i), nil)
				recs, rs = append(recs, r), append(rs, r)
			}
			m := h.start(config(), rs...)
			eventually(t, func() bool { return h.reads() >= 1 }, "the dispatcher reads the empty log")
			before := h.reads()

			// Fifty events in one commit: one announcement, so one read.
			h.append("node/a", 50)
			for _, r := range recs {
				h.caughtUp(m, r.name)
			}
			var want []int64
			for p := range int64(50) {
				want = append(want, p+1)
			}
			for _, r := range recs {
				if diff := cmp.Diff(want, r.seenPositions()); diff != "" {
					t.Errorf("%s's KeysFor was handed (-want +got):\n%s", r.name, diff)
				}
			}
			// The read that found them, and perhaps the one that found
			// nothing after them; never one per reconciler.
			if got := h.reads() - before; got < 1 || got > 2 {
				t.Errorf("%d reconcilers: the dispatcher read the log %v times for one commit, want 1 or 2", tt.reconcilers, got)
			}
			if diff := cmp.Diff([]string{reconcilers.ConsumerGroup}, h.groups()); diff != "" {
				t.Errorf("consumer groups (-want +got):\n%s", diff)
			}
		})
	}
}

func TestThePositionIsSavedOnlyOnceEveryReconcilerHasQueuedTheEvent(t *testing.T) {
	h := newHarness(t, func(c *events.Config) { c.FollowSaveInterval = time.Millisecond })
	release := make(chan struct{})
	fast := newRecorder("fast", nil)
	slow := newRecorder("slow", func(rec events.Record) []string {
		if rec.Stream == "node/slow" {
			<-release
		}
		return []string{rec.Stream}
	})
	m := h.start(config(), fast, slow)
	h.append("node/a", 1)
	eventually(t, func() bool { return h.offset() == 1 }, "position 1 is saved; it is %d", later(func() any { return h.offset() }))

	h.append("node/slow", 1)
	// fast has queued position 2; slow is still mapping it.
	eventually(t, func() bool { return status(t, m, "fast").Position == 2 }, "fast is handed position 2")
	eventually(t, func() bool { return fast.Count("node/slow") == 1 }, "fast reconciles node/slow")
	if got := h.offset(); got != 1 {
		t.Fatalf("saved position %d while slow had not queued position 2, want 1", got)
	}
	close(release)
	eventually(t, func() bool { return h.offset() == 2 }, "position 2 is saved once slow has queued it; it is %d", later(func() any { return h.offset() }))
	stop(t, m)

	// A restart resumes after it.
	h.append("node/b", 1)
	again := newRecorder("fast", nil)
	m = h.start(config(), again)
	h.caughtUp(m, "fast")
	if diff := cmp.Diff([]int64{3}, again.seenPositions()); diff != "" {
		t.Errorf("after a restart, handed (-want +got):\n%s", diff)
	}
}

// offset is the dispatcher's saved position.
func (h *harness) offset() int64 {
	h.t.Helper()
	off, err := h.store.ConsumerOffset(h.t.Context(), reconcilers.ConsumerGroup)
	if err != nil {
		h.t.Fatal(err)
	}
	return off
}

func TestAPoisonEventStopsNoReconciler(t *testing.T) {
	h := newHarness(t)
	fragile := newRecorder("fragile", func(rec events.Record) []string {
		if rec.Type == garbled {
			panic("cannot decode payload")
		}
		return []string{rec.Stream}
	})
	sturdy := newRecorder("sturdy", nil)
	m := h.start(config(), fragile, sturdy)

	h.append("node/x", 1, garbled)
	// A stored event nobody can read: its metadata is JSON but not herd's
	// (an actor that is a number; the audit indexes refuse non-JSON).
	res, err := h.store.DB().ExecContext(t.Context(), `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata)
		VALUES ('unreadable', 'node/u', 1, 'Happened', 1, 0, '{}', '{"actor": 5}')`)
	if err != nil {
		t.Fatal(err)
	}
	pos, _ := res.LastInsertId()
	h.store.Committed(pos)
	h.append("node/y", 1)
	for _, name := range []string{"fragile", "sturdy"} {
		h.caughtUp(m, name)
	}
	h.settle(sturdy.fakeReconciler)
	eventually(t, func() bool { return fragile.Count("node/barrier-1") == 1 }, "fragile reconciles the barrier too")

	tests := []struct {
		reconciler string
		f          *recorder
		wantCalls  []string
		wantPoison float64
	}{
		{"fragile", fragile, []string{"node/y", "node/barrier-1"}, 2},
		{"sturdy", sturdy, []string{"node/x", "node/y", "node/barrier-1"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.reconciler, func(t *testing.T) {
			if diff := cmp.Diff(tt.wantCalls, tt.f.Calls()); diff != "" {
				t.Errorf("reconciled (-want +got):\n%s", diff)
			}
			if got := h.value("herd_reconciler_poison_total", tt.reconciler); got != tt.wantPoison {
				t.Errorf("herd_reconciler_poison_total = %v, want %v", got, tt.wantPoison)
			}
		})
	}
}

// The harness polls once an hour: only the commit signal can explain the
// dispatcher handing on each event within the wait.
func TestACommitWakesTheDispatcherAtOnce(t *testing.T) {
	h := newHarness(t)
	f := newRecorder("mine", nil)
	m := h.start(config(), f)
	for i := range 3 {
		h.append("node/a", 1)
		h.caughtUp(m, "mine")
		if got := len(f.seenPositions()); got != i+1 {
			t.Fatalf("after %d commits, KeysFor was handed %d events", i+1, got)
		}
	}
}

func TestAnIdleDispatcherWritesNothing(t *testing.T) {
	// Fallback polls every millisecond, to have many of them to watch.
	h := newHarness(t, func(c *events.Config) { c.FollowInterval, c.FollowSaveInterval = time.Millisecond, time.Millisecond })
	f := newFakeReconciler("mine")
	m := h.start(config(), f)
	h.append("node/a", 1)
	h.caughtUp(m, "mine")
	eventually(t, func() bool { return h.offset() == 1 }, "position 1 is saved")

	conn := h.probe()
	before, reads := eventstest.DataVersion(t, conn), h.reads()
	// The probe holds the write lock meanwhile: a poll that wanted it
	// would wait behind it, and the polls would stop.
	eventstest.HoldWriteLock(t, conn, func() {
		eventually(t, func() bool { return h.reads() >= reads+20 }, "twenty fallback polls while another connection holds the write lock")
	})
	if after := eventstest.DataVersion(t, conn); after != before {
		t.Errorf("data_version went from %d to %d over twenty idle polls: the idle dispatcher wrote", before, after)
	}
}

// probe is a connection of its own to the harness's database, whose
// data_version moves when any other connection commits.
func (h *harness) probe() *sql.Conn {
	h.t.Helper()
	var (
		seq        int
		name, file string
	)
	if err := h.store.DB().QueryRowContext(h.t.Context(), "PRAGMA database_list").Scan(&seq, &name, &file); err != nil {
		h.t.Fatal(err)
	}
	db, err := events.OpenDB(h.t.Context(), file, events.Config{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = db.Close() })
	conn, err := db.Conn(h.t.Context())
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// Lag moves with the dispatcher, not only on resyncs (the fake does not
// resync): handed each of five events of one commit, the reconciler's lag
// is what was left after the one before.
func TestLagFollowsTheDispatcher(t *testing.T) {
	h := newHarness(t)
	var (
		mu   sync.Mutex
		lags []float64
	)
	f := newRecorder("mine", func(rec events.Record) []string {
		mu.Lock()
		lags = append(lags, h.value("herd_reconciler_lag_events", "mine"))
		mu.Unlock()
		return []string{rec.Stream}
	})
	m := h.start(config(), f)
	eventually(t, func() bool { return h.reads() >= 1 }, "the dispatcher reads the empty log")
	h.append("node/a", 5)
	h.caughtUp(m, "mine")
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]float64{0, 4, 3, 2, 1}, lags); diff != "" {
		t.Errorf("lag seen by each KeysFor (-want +got):\n%s", diff)
	}
	if got := h.value("herd_reconciler_lag_events", "mine"); got != 0 {
		t.Errorf("lag after the last event = %v, want 0", got)
	}
}
