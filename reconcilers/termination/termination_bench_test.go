package termination

import (
	"fmt"
	"testing"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// BenchmarkTerminate measures taking 100 pods from a deletion request to
// finalization on the mock runtime, one reconcile each: the runtime's
// calls, one unit of work for the steps, the views read before.
func BenchmarkTerminate(b *testing.B) {
	const pods = 100
	f := newFixture(b, testConfig())
	f.ReadyNode("n1", nil)
	for b.Loop() {
		b.StopTimer()
		var batch []domain.Keyed[domain.PodCommand]
		for i := range pods {
			c := reconcilerstest.CreatePod(fmt.Sprintf("web-%03d", i), "n1", 30)
			batch = append(batch, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: "default", Name: c.Name}, Command: domain.PodSequence{c, domain.DeletePod{}}})
		}
		created, _, err := f.Writer.PodBatch().ExecuteBatch(b.Context(), batch)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range created {
			if err := f.mock.Provision(b.Context(), p); err != nil {
				b.Fatal(err)
			}
			if _, err := f.mock.Start(b.Context(), p); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for _, p := range created {
			if _, err := f.r.Reconcile(b.Context(), podKey(p)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*pods)/1000, "ms/pod")
}

// BenchmarkResync measures the termination reconciler's resync over 10,000
// pods, 100 of them terminating.
func BenchmarkResync(b *testing.B) {
	const pods, terminating = 10000, 100
	f := newFixture(b, testConfig())
	f.ReadyNode("n1", nil)
	var batch []domain.Keyed[domain.PodCommand]
	for i := range pods {
		c := reconcilerstest.CreatePod(fmt.Sprintf("web-%05d", i), "n1", 30)
		cmds := domain.PodSequence{c}
		if i < terminating {
			cmds = append(cmds, domain.DeletePod{})
		}
		batch = append(batch, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: "default", Name: c.Name}, Command: cmds})
	}
	if _, _, err := f.Writer.PodBatch().ExecuteBatch(b.Context(), batch); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		keys, err := f.r.Resync(b.Context())
		if err != nil || len(keys) != terminating {
			b.Fatalf("%d keys, %v", len(keys), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/resync")
}
