package health

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections"
)

// markHook is the health rules' repository with before run ahead of each
// mark (a node command that weighs its lease) reaches the write path:
// after the monitor judged the node, before the mark is decided.
type markHook struct {
	Repository
	before func(name string)
}

func (h markHook) NodeCommands() domain.Executor[domain.Node, domain.NodeCommand] {
	return hookedNodes{Executor: h.Repository.NodeCommands(), before: h.before}
}

type hookedNodes struct {
	domain.Executor[domain.Node, domain.NodeCommand]
	before func(name string)
}

func (e hookedNodes) Execute(ctx context.Context, key domain.Key, cmd domain.NodeCommand) (domain.Node, error) {
	if domain.WeighsLease(cmd) {
		e.before(key.Name)
	}
	return e.Executor.Execute(ctx, key, cmd)
}

// newPostgresFleet is newBenchFleet on a PostgreSQL database of its own.
func newPostgresFleet(t *testing.T, nodes int) (*benchFleet, events.Log) {
	t.Helper()
	ctx := t.Context()
	log := eventstest.OpenPostgres(t, pgtest.URL(t))
	if err := projections.Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
	w := projections.NewWriter(log, clk, nil)
	f := &benchFleet{w: w, view: projections.NewNodeView(log), clk: clk}
	for i := range nodes {
		name := benchNodeName(i)
		reg := domain.RegisterNode{Registration: domain.Registration{Name: name, Kind: domain.KindLinux}}
		if _, err := w.NodeCommands().Execute(ctx, domain.Key{Name: name}, reg); err != nil {
			t.Fatal(err)
		}
	}
	f.heartbeat(t, nodes)
	return f, log
}

// TestAHeartbeatCommittedAfterTheVerdictCancelsTheMark: a node judged
// silent whose kubelet renews its lease, or reports its status, after the
// judgment and before the mark is written stays Ready: the mark is decided
// in the write against the node and its lease as committed, and writes
// nothing. Its deadline is then the newer heartbeat's: it is marked a grace
// period after that one if it falls silent again, with that heartbeat as
// its last. A node that stays silent is marked as before. On both engines.
func TestAHeartbeatCommittedAfterTheVerdictCancelsTheMark(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		f := newBenchFleet(t, 3)
		heardAfterTheVerdict(t, f, f.store.Log())
	})
	t.Run("postgres", func(t *testing.T) {
		f, log := newPostgresFleet(t, 3)
		heardAfterTheVerdict(t, f, log)
	})
}

// heardAfterTheVerdict runs the test above on f, whose log is log: node 0
// renews its lease after its verdict, node 1 reports after its verdict,
// node 2 stays silent.
func heardAfterTheVerdict(t *testing.T, f *benchFleet, log events.Log) {
	ctx := t.Context()
	var renewedAt time.Time
	hook := func(name string) {
		switch name {
		case benchNodeName(0):
			if err := f.renewLease(ctx, 0); err != nil {
				t.Error(err)
			}
		case benchNodeName(1):
			if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: name}, domain.RecordHeartbeat{}); err != nil {
				t.Error(err)
			}
		}
	}
	repo := markHook{Repository: f.w, before: func(string) {}}
	r, err := New(DefaultConfig(), &repo, f.view, f.clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	f.clk.Step(45 * time.Second) // every node's last heartbeat is past its grace period
	renewedAt = f.clk.Now()
	repo.before = hook
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	repo.before = func(string) {}
	want := [3]domain.ConditionStatus{domain.ConditionTrue, domain.ConditionTrue, domain.ConditionUnknown}
	if got := [3]domain.ConditionStatus{f.readyOf(t, 0), f.readyOf(t, 1), f.readyOf(t, 2)}; got != want {
		t.Fatalf("Ready of the renewed, the reported and the silent node: %v, want %v", got, want)
	}
	if got := missed(t, log, 0); len(got) != 0 {
		t.Fatalf("the node renewed after its verdict has HeartbeatMissed %+v", got)
	}
	if got := missed(t, log, 1); len(got) != 0 {
		t.Fatalf("the node reported after its verdict has HeartbeatMissed %+v", got)
	}

	// Watched from the newer heartbeat: not silent before its grace
	// period, marked after it, that heartbeat its last.
	f.clk.Step(30 * time.Second)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	if got := [2]domain.ConditionStatus{f.readyOf(t, 0), f.readyOf(t, 1)}; got != [2]domain.ConditionStatus{domain.ConditionTrue, domain.ConditionTrue} {
		t.Fatalf("30 s after their heartbeats the nodes are %v, want both Ready", got)
	}
	f.clk.Step(15 * time.Second)
	if err := r.monitor(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		got := missed(t, log, i)
		if len(got) != 1 || !got[0].LastHeartbeat.Equal(renewedAt) || f.readyOf(t, i) != domain.ConditionUnknown {
			t.Errorf("node %d, silent again a grace period after its heartbeat at %v: HeartbeatMissed %+v, Ready %s",
				i, renewedAt, got, f.readyOf(t, i))
		}
	}
}

// missed are node i's HeartbeatMissed events in log.
func missed(t *testing.T, log events.Log, i int) []domain.HeartbeatMissed {
	t.Helper()
	recs, err := log.ReadStream(t.Context(), domain.NodeStream(benchNodeName(i)), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.HeartbeatMissed
	for _, rec := range recs {
		if rec.Type != (domain.HeartbeatMissed{}).EventType() {
			continue
		}
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.(domain.HeartbeatMissed))
	}
	return out
}
