package noexecute

import (
	"fmt"
	"testing"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// BenchmarkTaintedNode measures one pass over a node with a NoExecute
// taint and 1,000 pods that all tolerate it for a while: what herd does
// for such a node on every resync until the first eviction is due.
func BenchmarkTaintedNode(b *testing.B) {
	const pods = 1000
	env := reconcilerstest.New(b)
	env.ReadyNode("n1", nil)
	secs := int64(300)
	var batch []domain.Keyed[domain.PodCommand]
	for i := range pods {
		c := reconcilerstest.CreatePod(fmt.Sprintf("web-%04d", i), "n1", 30)
		c.Spec.Tolerations = []domain.Toleration{{Key: "maintenance", Operator: domain.TolerationOpExists, Effect: domain.EffectNoExecute, TolerationSeconds: &secs}}
		batch = append(batch, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: "default", Name: c.Name}, Command: c})
	}
	if _, _, err := env.Writer.PodBatch().ExecuteBatch(b.Context(), batch); err != nil {
		b.Fatal(err)
	}
	env.Node("n1", domain.TaintNode{Taint: domain.Taint{Key: "maintenance", Value: "true", Effect: domain.EffectNoExecute}})
	r := newReconciler(env)
	b.ResetTimer()
	for b.Loop() {
		res, err := r.Reconcile(b.Context(), reconcilerstest.NodeKey("n1"))
		if err != nil || res.RequeueAfter == 0 {
			b.Fatalf("%+v %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/pass")
}
