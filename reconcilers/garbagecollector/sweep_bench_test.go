package garbagecollector

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// BenchmarkSweep is the resync's pass over kube-node-lease where every
// node's lease names its node, which exists: what the collector does
// every 30 seconds for a namespace that almost always holds nothing to
// collect. "pass" is a pass after the first; "first" is the first pass
// after the collector starts running (Watches asked before each). The
// views are herd's, on SQLite, with the node and lease views answering
// from the unit of work's memory as herd serve's do.
func BenchmarkSweep(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("leases=%dk", n/1000), func(b *testing.B) {
			r := sweepFleet(b, n)
			ctx := b.Context()
			key := namespaceKey("kube-node-lease")
			if _, err := r.Reconcile(ctx, key); err != nil {
				b.Fatal(err)
			}
			b.Run("pass", func(b *testing.B) {
				b.ReportAllocs()
				start := cpuTime()
				for b.Loop() {
					if _, err := r.Reconcile(ctx, key); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			})
			b.Run("first", func(b *testing.B) {
				b.ReportAllocs()
				start := cpuTime()
				for b.Loop() {
					r.Watches()
					if _, err := r.Reconcile(ctx, key); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			})
		})
	}
}

// cpuTime is the CPU time the process used so far, its garbage
// collection included: on a shared machine, what a pass costs more
// faithfully than the wall time it took.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sweepFleet registers n nodes, each with its lease in kube-node-lease
// naming it as its owner, as a kubelet does, and returns the collector
// on herd's views of them.
func sweepFleet(b *testing.B, n int) *Reconciler {
	b.Helper()
	env := reconcilerstest.New(b)
	ctx, w, l := b.Context(), env.Writer, env.Log
	for i := range n {
		name := fmt.Sprintf("node-%06d", i)
		node, err := w.NodeCommands().Execute(ctx, domain.Key{Name: name},
			domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: domain.KindLinux}})
		if err != nil {
			b.Fatal(err)
		}
		owner := domain.OwnerReference{APIVersion: "v1", Kind: "Node", Name: name, UID: node.UID}
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: "kube-node-lease", Name: name}, domain.CreateLease{
			Namespace: "kube-node-lease", Name: name, UID: "uid-lease-" + name,
			Content: domain.LeaseContent{Owners: []domain.OwnerReference{owner}, Spec: domain.LeaseSpec{HolderIdentity: name}},
		}); err != nil {
			b.Fatal(err)
		}
	}
	return New(DefaultResyncPeriod, Readers{
		Pods: projections.NewPodView(l), ConfigMaps: projections.NewConfigMapView(l), Leases: projections.NewLeaseView(l).Remembering(w),
		ReplicaSets: projections.NewReplicaSetView(l), Deployments: projections.NewDeploymentView(l), Jobs: projections.NewJobView(l),
		CronJobs: projections.NewCronJobView(l), StatefulSets: projections.NewStatefulSetView(l), DaemonSets: projections.NewDaemonSetView(l),
		PodDisruptionBudgets: projections.NewPodDisruptionBudgetView(l), ControllerRevisions: projections.NewControllerRevisionView(l),
		Nodes: projections.NewNodeView(l).Remembering(w), Namespaces: projections.NewNamespaceView(l),
	}, w, zap.NewNop())
}
