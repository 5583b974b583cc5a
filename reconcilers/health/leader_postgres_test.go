package health

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections"
	"herd/reconcilers"
)

// TestMain stops the tests' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// healthReplica is one herd serve's health rules on a PostgreSQL database
// shared with others, elected through it.
type healthReplica struct {
	w *projections.Writer
	m *reconcilers.Manager
}

func startHealthReplica(t *testing.T, url, name string, clk *clocktesting.FakeClock) *healthReplica {
	t.Helper()
	log, err := events.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	w := projections.NewWriter(log, clk, nil)
	r, err := New(DefaultConfig(), w, projections.NewNodeView(log), clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	m, err := reconcilers.NewManager(reconcilers.Params{
		Config: reconcilers.Config{Enabled: []string{"*"}, Workers: 2, MaxRetries: 5}, Reconcilers: []reconcilers.Reconciler{r},
		Log: log, Leadership: log.Leadership(events.LeadershipConfig{Replica: name}),
		Clock: clk, Logger: zap.NewNop(), Metrics: reconcilers.NewMetrics(prometheus.NewRegistry()),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopManager(t, m) })
	return &healthReplica{w: w, m: m}
}

func stopManager(t *testing.T, m *reconcilers.Manager) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Stop(ctx); err != nil {
		t.Error(err)
	}
}

// TestANewHealthLeaderGivesEveryNodeAFullGracePeriod: on PostgreSQL the
// health rules run on the replica that leads the reconcilers. When the
// leader goes and, fifteen minutes later, another replica takes the rules
// over, that is a start: a node that reports within a grace period of the
// takeover is never marked, and one silent across it is marked a grace
// period after the takeover, not at once.
func TestANewHealthLeaderGivesEveryNodeAFullGracePeriod(t *testing.T) {
	url := pgtest.URL(t)
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(t0)
	ctx := t.Context()
	migrate := eventstest.OpenPostgres(t, url)
	if err := projections.Migrate(ctx, migrate); err != nil {
		t.Fatal(err)
	}

	report := func(w *projections.Writer, name string) {
		t.Helper()
		hb := domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 50,
			DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}}
		if _, err := w.NodeCommands().Execute(ctx, domain.Key{Name: name}, domain.NodeFrom(func(n domain.Node) (domain.NodeCommand, error) {
			if !n.Exists() {
				return domain.NodeSequence{domain.RegisterNode{Registration: domain.Registration{Name: name, Kind: domain.KindLinux}}, hb}, nil
			}
			return hb, nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	registrar := projections.NewWriter(migrate, clk, nil)
	report(registrar, "web-01")
	report(registrar, "web-02")
	view := projections.NewNodeView(migrate)
	readyOf := func(name string) domain.ConditionStatus {
		t.Helper()
		n, err := view.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := n.Condition(domain.ConditionReady)
		return c.Status
	}
	count := func(typ string) int {
		t.Helper()
		recs, err := migrate.Query(ctx, events.Filter{Types: []string{typ}})
		if err != nil {
			t.Fatal(err)
		}
		return len(recs)
	}

	a := startHealthReplica(t, url, "a", clk)
	if !a.m.Leading() {
		t.Fatal("the first replica does not lead")
	}
	eventstest.Eventually(t, 30*time.Second, func() bool { return count("HealthMonitorStarted") == 1 },
		"the first replica records the health rules' start")

	// The leader goes; no replica runs the health rules for fifteen
	// minutes; then another takes them over.
	stopManager(t, a.m)
	clk.Step(15 * time.Minute)
	takeover := clk.Now()
	b := startHealthReplica(t, url, "b", clk)
	eventstest.Eventually(t, 30*time.Second, func() bool { return b.m.Leading() && count("HealthMonitorStarted") == 2 },
		"the second replica leads the health rules and records its start")
	resyncs := func() int64 { s, _ := b.m.Status("health"); return s.Resyncs }
	pass := func(d time.Duration) {
		t.Helper()
		before := resyncs()
		clk.Step(d)
		eventstest.Eventually(t, 30*time.Second, func() bool {
			s, _ := b.m.Status("health")
			return s.Resyncs > before && s.Queued == 0 && s.InFlight == 0
		}, "a monitor pass at %s", clk.Now())
	}
	for clk.Now().Before(takeover.Add(35 * time.Second)) {
		pass(5 * time.Second)
	}
	report(b.w, "web-01")
	pass(5 * time.Second) // takeover + 40s: nobody is past a grace period from the takeover
	if got := count("HeartbeatMissed"); got != 0 {
		t.Fatalf("%d nodes marked within a grace period of the takeover, want none", got)
	}
	if readyOf("web-01") != domain.ConditionTrue || readyOf("web-02") != domain.ConditionTrue {
		t.Fatalf("Ready of web-01 %s, web-02 %s within the grace period, want both True", readyOf("web-01"), readyOf("web-02"))
	}
	pass(5 * time.Second) // takeover + 45s: web-02, silent across the takeover, is marked
	eventstest.Eventually(t, 30*time.Second, func() bool { return readyOf("web-02") == domain.ConditionUnknown },
		"web-02 is marked a grace period after the takeover")
	if readyOf("web-01") != domain.ConditionTrue || count("HeartbeatMissed") != 1 || count("FleetDisruptionStarted") != 0 {
		t.Errorf("after the grace period: web-01 %s, %d HeartbeatMissed, %d FleetDisruptionStarted; want True, 1, 0",
			readyOf("web-01"), count("HeartbeatMissed"), count("FleetDisruptionStarted"))
	}
}
