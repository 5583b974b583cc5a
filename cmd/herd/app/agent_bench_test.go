package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/herdclient"
	"herd/adapters/mockruntime"
	"herd/domain"
	"herd/projections"
	"herd/reconcilers/zones"
)

// BenchmarkAgentPollOfRunningPods is one poll of an agent whose node runs
// pods pods, all running: the zones reconciler's resync lists them over
// herd's API, and each key reads its pod and node back and asks the
// runtime (the mock) how it stands. This is what an agent costs herd
// every --poll-interval while nothing changes.
func BenchmarkAgentPollOfRunningPods(b *testing.B) {
	for _, pods := range []int{10, 110} {
		b.Run(fmt.Sprintf("pods=%d", pods), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Listen, cfg.DataDir, cfg.LogLevel = "127.0.0.1:0", b.TempDir(), "error"
			cfg.Reconcilers.Enabled = nil
			var (
				srv *HTTPServer
				w   *projections.Writer
				clk clock.Clock
			)
			a := fx.New(Options(cfg, fx.Populate(&srv, &w, &clk)), fx.NopLogger)
			ctx := context.Background()
			if err := a.Start(ctx); err != nil {
				b.Fatal(err)
			}
			defer func() { _ = a.Stop(ctx) }()
			c, err := herdclient.New(herdclient.Config{Server: srv.URL()})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Register(ctx, domain.Registration{Name: "a1", Kind: domain.KindLinux,
				Labels: map[string]string{domain.LabelRuntime: domain.RuntimeAgent}}); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Heartbeat(ctx, "a1", domain.Metrics{CPUCount: 4, MemoryTotalBytes: 8 << 30, MemoryAvailableBytes: 4 << 30,
				DiskTotalBytes: 100 << 30, DiskAvailableBytes: 50 << 30, PIDsMax: 1000, PIDsCurrent: 10}); err != nil {
				b.Fatal(err)
			}
			mock, err := mockruntime.New(mockruntime.Config{}, clk)
			if err != nil {
				b.Fatal(err)
			}
			pool, _ := domain.ParseIPPool("10.88.0.0/16")
			for i := range pods {
				name := fmt.Sprintf("web-%03d", i)
				grace := int64(30)
				p, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: name}, domain.PodSequence{
					domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, TerminationGracePeriodSeconds: &grace,
						Spec: domain.PodSpec{NodeName: "a1", Containers: []domain.Container{{Name: "app", Image: "busybox"}}}},
					domain.AssignPodIP{Network: pool.NetworkFor(pool.Address(i).String())},
					domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning, StartTime: clk.Now()}},
				})
				if err != nil {
					b.Fatal(err)
				}
				if err := mock.Provision(ctx, p); err != nil {
					b.Fatal(err)
				}
				if _, err := mock.Start(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			r, err := zones.New(zones.Config{ResyncPeriod: time.Second, Node: "a1"}, c,
				zones.RuntimesFunc(func(domain.Node) (zones.Runtime, bool) { return mock, true }), clk, zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				keys, err := r.Resync(ctx)
				if err != nil || len(keys) != pods {
					b.Fatalf("resync: %d keys, %v", len(keys), err)
				}
				for _, k := range keys {
					if _, err := r.Reconcile(ctx, k); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*pods), "µs/pod")
		})
	}
}
