package reconcilers_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/events"
	"herd/events/pgtest"
	"herd/reconcilers"
)

// TestOnSQLiteTheReconcilersRunAtOnce: herd on SQLite shares its log with
// no one, so it leads at once and its reconcilers run as Start returns.
func TestOnSQLiteTheReconcilersRunAtOnce(t *testing.T) {
	h := newHarness(t)
	f := newFakeReconciler("mine")
	m := h.start(config(), f)
	if !m.Leading() {
		t.Fatal("not leading once Start returned")
	}
	if got := leaderGauge(t, h.reg); got != 1 {
		t.Errorf("herd_leader{job=%q} = %v, want 1", reconcilers.Job, got)
	}
	who, ok, err := m.Leader(t.Context())
	if err != nil || !ok || !who.Self || who.Replica != events.DefaultReplica() {
		t.Errorf("Leader: %+v, ok %t, %v; want this replica", who, ok, err)
	}
	stop(t, m)
	if m.Leading() || leaderGauge(t, h.reg) != 0 {
		t.Errorf("still leading after Stop (herd_leader %v)", leaderGauge(t, h.reg))
	}
}

// replica is one herd serve's reconcilers on a PostgreSQL database shared
// with others: its log, its manager, its reconciler and its metrics.
type replica struct {
	name string
	log  *events.Postgres
	m    *reconcilers.Manager
	f    *fakeReconciler
	reg  *prometheus.Registry

	mu        sync.Mutex
	positions []int64 // the positions its dispatcher handed f, in order
}

// startReplica starts a replica named name on the database at url.
func startReplica(t *testing.T, url, name string) *replica {
	t.Helper()
	log, err := events.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	r := &replica{name: name, log: log, f: newFakeReconciler("pg"), reg: prometheus.NewRegistry()}
	r.f.keysFor = func(rec events.Record) []string {
		r.mu.Lock()
		r.positions = append(r.positions, rec.Position)
		r.mu.Unlock()
		return []string{rec.Stream}
	}
	r.m, err = reconcilers.NewManager(reconcilers.Params{
		Config: config(), Reconcilers: []reconcilers.Reconciler{r.f}, Log: log,
		Leadership: log.Leadership(events.LeadershipConfig{Replica: name}),
		Clock:      clocktesting.NewFakeClock(t0), Logger: zap.NewNop(), Metrics: reconcilers.NewMetrics(r.reg),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(t, r.m) })
	return r
}

func (r *replica) handed() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.positions)
}

// leader is who r's manager says leads.
func (r *replica) leader(t *testing.T) (events.Leader, bool) {
	t.Helper()
	who, ok, err := r.m.Leader(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return who, ok
}

// TestOneReplicaRunsTheReconcilers: of two replicas on one PostgreSQL
// database, the first leads and only its reconciler is called; when it
// goes (its log closes, or the database ends its session) the other
// takes over, resumes right after the position the first acknowledged
// and is called for what comes next.
func TestOneReplicaRunsTheReconcilers(t *testing.T) {
	tests := []struct {
		name string
		end  func(t *testing.T, a *replica)
	}{
		{name: "its log closes", end: func(t *testing.T, a *replica) {
			if err := a.log.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "the database ends its session", end: func(t *testing.T, a *replica) {
			db, _ := events.SQLDB(a.log)
			var n int
			err := db.QueryRowContext(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE datname = current_database() AND application_name = 'herd leader a'`).Scan(&n)
			if err != nil || n != 1 {
				t.Fatalf("terminated %d sessions, %v; want a's one", n, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := pgtest.URL(t)
			a := startReplica(t, url, "a")
			if !a.m.Leading() {
				t.Fatal("the first replica does not lead once Start returned")
			}
			b := startReplica(t, url, "b")
			if b.m.Leading() {
				t.Fatal("both replicas lead")
			}
			if got, want := []float64{leaderGauge(t, a.reg), leaderGauge(t, b.reg)}, []float64{1, 0}; !slices.Equal(got, want) {
				t.Errorf("herd_leader of a and b: %v, want %v", got, want)
			}
			for _, r := range []*replica{a, b} {
				who, ok := r.leader(t)
				if !ok || who.Replica != "a" || who.Self != (r == a) {
					t.Errorf("asked of %s: %+v, ok %t; want a", r.name, who, ok)
				}
			}

			// While a leads, only its reconciler is called.
			appendPG(t, b.log, "node/one")
			last := appendPG(t, b.log, "node/two")
			eventually(t, func() bool { return a.f.Count("node/one") > 0 && a.f.Count("node/two") > 0 },
				"a's reconciler is called for both events; it was called for %v", a.f.seen())
			saved := func() int64 {
				pos, err := b.log.GroupPosition(t.Context(), reconcilers.ConsumerGroup, "")
				if err != nil {
					t.Fatal(err)
				}
				return pos
			}
			eventually(t, func() bool { return saved() == last }, "a's dispatcher saves its position %d", last)

			tt.end(t, a)
			eventually(t, func() bool { return !a.m.Leading() && b.m.Leading() },
				"b takes over from a (a leads: %v, b leads: %v)", later(func() any { return a.m.Leading() }), later(func() any { return b.m.Leading() }))
			if who, ok := b.leader(t); !ok || who.Replica != "b" || !who.Self {
				t.Errorf("after the takeover: %+v, ok %t; want b", who, ok)
			}
			if got, want := []float64{leaderGauge(t, a.reg), leaderGauge(t, b.reg)}, []float64{0, 1}; !slices.Equal(got, want) {
				t.Errorf("herd_leader of a and b after the takeover: %v, want %v", got, want)
			}

			after := appendPG(t, b.log, "node/three")
			eventually(t, func() bool { return b.f.Count("node/three") > 0 },
				"b's reconciler is called for the event after the takeover; it was called for %v", b.f.seen())
			if n := a.f.Count("node/three"); n > 0 {
				t.Errorf("a's reconciler was called %d times for node/three, after it lost the lead", n)
			}
			for _, k := range []string{"node/one", "node/two"} {
				if n := b.f.Count(k); n > 0 {
					t.Errorf("b's reconciler was called %d times for %s, before it led", n, k)
				}
			}
			// b resumed right after a's acknowledged position: nothing
			// skipped, nothing a had handled handed again.
			if got := b.handed(); !slices.Equal(got, []int64{after}) || after != last+1 {
				t.Errorf("b's dispatcher handed positions %v, want [%d] (a acknowledged %d)", got, last+1, last)
			}
		})
	}
}

// leaderGauge is herd_leader{job="reconcilers"} in reg.
func leaderGauge(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != "herd_leader" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "job" && l.GetValue() == reconcilers.Job {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no herd_leader{job=%q}", reconcilers.Job)
	return 0
}
