package podready

import (
	"fmt"
	"testing"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// BenchmarkSilentNodes measures what the reconciler does when a fleet of
// nodes falls silent: one reconcile per node, each marking its pods (2 a
// node) not ready in one unit of work, on SQLite. Between rounds, out of
// the timer, every pod reports Ready again. Nodes with no pod cost a
// node read and an empty list of pods: BenchmarkSilentNodes/pods=0.
func BenchmarkSilentNodes(b *testing.B) {
	for _, perNode := range []int{0, 2} {
		b.Run(fmt.Sprintf("pods=%d", perNode), func(b *testing.B) {
			const nodes = 500
			env := reconcilerstest.New(b)
			var pods []domain.Keyed[domain.PodCommand]
			for n := range nodes {
				node := fmt.Sprintf("n%04d", n)
				env.ReadyNode(node, nil)
				for i := range perNode {
					name := fmt.Sprintf("%s-%d", node, i)
					pods = append(pods, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: "default", Name: name},
						Command: domain.PodSequence{reconcilerstest.CreatePod(name, node, 30), running(domain.ConditionTrue)}})
				}
			}
			if len(pods) > 0 {
				if _, _, err := env.Writer.PodBatch().ExecuteBatch(b.Context(), pods); err != nil {
					b.Fatal(err)
				}
			}
			for n := range nodes {
				env.Node(fmt.Sprintf("n%04d", n), reconcilerstest.MarkSilent())
			}
			ready := make([]domain.Keyed[domain.PodCommand], len(pods))
			for i, p := range pods {
				ready[i] = domain.Keyed[domain.PodCommand]{Key: p.Key, Command: running(domain.ConditionTrue)}
			}
			r := newReconciler(env)
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				if len(ready) > 0 {
					if _, _, err := env.Writer.PodBatch().ExecuteBatch(b.Context(), ready); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				for n := range nodes {
					if _, err := r.Reconcile(b.Context(), reconcilerstest.NodeKey(fmt.Sprintf("n%04d", n))); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*nodes), "µs/node")
			if p, _ := env.GetPod("n0000-0"); perNode > 0 && domain.PodReady(p) {
				b.Fatal("the pods were not marked")
			}
		})
	}
}
