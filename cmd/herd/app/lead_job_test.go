package app

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/zap"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// TestMain stops the tests' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// jobRunner is one replica's side of a job in leadJob's tests: whether
// its run is under way, and what it was told of its lead.
type jobRunner struct {
	running, leads atomic.Bool
	done           sync.WaitGroup
	stop           context.CancelFunc
}

func runJob(t *testing.T, l events.Leadership) *jobRunner {
	t.Helper()
	r := &jobRunner{}
	ctx, stop := context.WithCancel(context.Background())
	r.stop = stop
	r.done.Go(func() {
		leadJob(ctx, l, "retention", zap.NewNop(), r.leads.Store, func(ctx context.Context) {
			r.running.Store(true)
			<-ctx.Done()
			r.running.Store(false)
		})
	})
	t.Cleanup(r.end)
	return r
}

// end stops the runner and waits for leadJob to return.
func (r *jobRunner) end() {
	r.stop()
	r.done.Wait()
}

// TestOneReplicaRunsAJob: of two replicas on one PostgreSQL database,
// only the one that leads the job runs it; when its log closes (the
// replica goes) the other takes over. On SQLite the job runs at once.
func TestOneReplicaRunsAJob(t *testing.T) {
	t.Run("PostgreSQL", func(t *testing.T) {
		url := pgtest.URL(t)
		open := func() *events.Postgres { return eventstest.OpenPostgres(t, url) }
		logA, logB := open(), open()
		a := runJob(t, logA.Leadership(events.LeadershipConfig{Replica: "a"}))
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return a.running.Load() && a.leads.Load() }, "the first replica runs the job")
		lb := logB.Leadership(events.LeadershipConfig{Replica: "b"})
		b := runJob(t, lb)
		eventstest.Eventually(t, eventstest.WaitFor, func() bool {
			who, ok, err := lb.Leader(t.Context(), "retention")
			return err == nil && ok && who.Replica == "a"
		}, "the second replica sees the first lead")
		if b.running.Load() || b.leads.Load() {
			t.Fatal("both replicas run the job")
		}

		if err := logA.Close(); err != nil {
			t.Fatal(err)
		}
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return !a.running.Load() && !a.leads.Load() }, "the replica whose log closed stops")
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return b.running.Load() && b.leads.Load() }, "the other replica takes over")
		b.end()
		if b.running.Load() || b.leads.Load() {
			t.Error("the job still runs after its replica stopped")
		}
	})
	t.Run("SQLite", func(t *testing.T) {
		r := runJob(t, events.SoleLeadership(events.LeadershipConfig{}))
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return r.running.Load() }, "the job runs at once")
	})
}
