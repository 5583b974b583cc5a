package app

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/fx"

	"herd/domain"
	"herd/projections"
)

// BenchmarkDaemonSetOverFleet measures a DaemonSet over a fleet of
// 10,000 Ready linux nodes, in a running herd on SQLite (its real
// dispatcher, work queue and unit of work, fsynced commits), with the
// DaemonSet reconciler alone running ("daemonset") or every reconciler
// ("*", which also gives each pod an address and runs it on the mock
// runtime). It reports:
//
//   - s-to-fleet: from the DaemonSet's creation until its status counts
//     a pod bound to every node (the reconciler records it after the
//     commit that bound the last), checked once at the end against the
//     pod view: exactly one bound pod per node;
//   - cpu-s-to-fleet: the CPU time herd's process took meanwhile, which
//     the machine's other load does not stretch as it does the first;
//   - s-to-running, with every reconciler: from the creation until
//     every pod is Running on the mock runtime, with its address (looked
//     at every 2 s); the join is measured after that, on a quiet herd;
//   - ms-to-join: from a new node's registration (Ready in the same
//     unit of work) until the pod view has its pod bound to it.
//
// The nodes report Ready once and are given an hour's grace, so that
// they stay Ready without heartbeats.
//
// Targets: under 30 s and under 2 s. Run it once, it takes a minute:
//
//	go test -run '^$' -bench DaemonSetOverFleet -benchtime 1x -timeout 30m ./cmd/herd/app/
func BenchmarkDaemonSetOverFleet(b *testing.B) {
	if testing.Short() {
		b.Skip("a fleet of 10,000 nodes")
	}
	const nodes = 10000
	for _, enabled := range []string{"daemonset", "*"} {
		b.Run("reconcilers="+enabled, func(b *testing.B) {
			for b.Loop() {
				r := daemonSetOverFleet(b, nodes, enabled)
				b.ReportMetric(r.fleet.Seconds(), "s-to-fleet")
				b.ReportMetric(r.fleetCPU.Seconds(), "cpu-s-to-fleet")
				b.ReportMetric(float64(r.join.Microseconds())/1000, "ms-to-join")
				if r.running > 0 {
					b.ReportMetric(r.running.Seconds(), "s-to-running")
				}
			}
		})
	}
}

// fleetTimes are what daemonSetOverFleet measured.
type fleetTimes struct {
	fleet, fleetCPU, running, join time.Duration
}

// daemonSetOverFleet starts herd with the reconcilers enabled, registers
// n nodes, and returns how long a DaemonSet took to have a pod bound on
// each, and a node joining afterwards to have its own.
func daemonSetOverFleet(b *testing.B, n int, enabled string) fleetTimes {
	b.Helper()
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel = "127.0.0.1:0", b.TempDir(), "error"
	cfg.Reconcilers.Enabled = []string{enabled}
	// The nodes send no heartbeat after the one that made them Ready:
	// they must not fall silent during the run.
	cfg.Health.GracePeriod, cfg.Health.StartupGracePeriod = time.Hour, time.Hour
	var (
		w    *projections.Writer
		dss  *projections.DaemonSetView
		pods *projections.PodView
	)
	a := fx.New(Options(cfg, fx.Populate(&w, &dss, &pods)), fx.NopLogger)
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = a.Stop(ctx) }()

	b.StopTimer()
	registerReadyNodes(b, w, n)
	b.StartTimer()

	labels := map[string]string{"app": "node-agent"}
	spec := domain.DaemonSetSpec{
		Selector: domain.LabelSelector{MatchLabels: labels},
		Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{
			NodeSelector: map[string]string{domain.LabelKind: string(domain.KindLinux)},
			Containers:   []domain.Container{{Name: "agent", Image: "node-agent:1", Requests: domain.ResourceList{"cpu": 100, "memory": 64 << 20}}},
		}},
		UpdateStrategy: domain.DaemonSetUpdateStrategy{Type: domain.DaemonSetRollingUpdate,
			RollingUpdate: &domain.RollingUpdateDaemonSet{MaxUnavailable: domain.IntOrPercent{Value: 1}}},
		RevisionHistoryLimit: 10,
	}
	var r fleetTimes
	start, cpu := time.Now(), cpuTime(b)
	if _, err := w.DaemonSetCommands().Execute(ctx, domain.Key{Namespace: "default", Name: "node-agent"},
		domain.CreateDaemonSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "node-agent", UID: "uid-node-agent"}, Spec: spec}); err != nil {
		b.Fatal(err)
	}
	waitFor(b, 5*time.Minute, 20*time.Millisecond, func() (bool, error) {
		ds, err := dss.Get(ctx, "default", "node-agent")
		return int(ds.Status.CurrentNumberScheduled) == n, err
	})
	r.fleet, r.fleetCPU = time.Since(start), cpuTime(b)-cpu

	b.StopTimer()
	herd := domain.SourceHerd
	all, _, err := pods.List(ctx, projections.PodFilter{Namespace: "default", Source: &herd})
	if err != nil {
		b.Fatal(err)
	}
	bound := map[string]int{}
	for _, p := range all {
		if p.Spec.NodeName != "" && !p.Terminating() {
			bound[p.Spec.NodeName]++
		}
	}
	for node, count := range bound {
		if count != 1 {
			b.Fatalf("%s has %d of the DaemonSet's pods", node, count)
		}
	}
	if len(bound) != n {
		b.Fatalf("%d nodes have a pod, want %d", len(bound), n)
	}
	b.StartTimer()

	if enabled != "daemonset" {
		waitFor(b, 10*time.Minute, 2*time.Second, func() (bool, error) {
			on, _, err := pods.List(ctx, projections.PodFilter{Namespace: "default", Phase: domain.PodRunning})
			return len(on) == n, err
		})
		r.running = time.Since(start)
	}
	name := fmt.Sprintf("node-%05d", n)
	start = time.Now()
	registerNode(b, w, name)
	waitFor(b, time.Minute, time.Millisecond, func() (bool, error) {
		on, _, err := pods.List(ctx, projections.PodFilter{NodeName: name})
		return len(on) == 1, err
	})
	r.join = time.Since(start)
	return r
}

// registerReadyNodes registers n Ready linux nodes, from 64 writers at once
// so that their commits are grouped.
func registerReadyNodes(b *testing.B, w *projections.Writer, n int) {
	b.Helper()
	var wg sync.WaitGroup
	next := make(chan int)
	for range 64 {
		wg.Go(func() {
			for i := range next {
				registerNode(b, w, fmt.Sprintf("node-%05d", i))
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// registerNode registers a Ready linux node with room for 110 pods, in
// one unit of work.
func registerNode(b *testing.B, w *projections.Writer, name string) {
	alloc := domain.ResourceList{"cpu": 4000, "memory": 8 << 30, "pods": 110}
	if _, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, domain.NodeSequence{
		domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: domain.KindLinux, Capacity: alloc, Allocatable: alloc}},
		domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}},
	}); err != nil {
		b.Error(err)
	}
}

// waitFor polls done every interval until it says so, failing b after
// timeout.
func waitFor(b *testing.B, timeout, interval time.Duration, done func() (bool, error)) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := done()
		if err != nil {
			b.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("not done after %s", timeout)
		}
		time.Sleep(interval)
	}
}
