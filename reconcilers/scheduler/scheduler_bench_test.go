package scheduler

import (
	"context"
	"fmt"
	"testing"

	"herd/domain"
	"herd/projections"
)

// BenchmarkSchedule10kPodsOnto1kNodes measures one scheduling pass that
// binds 10,000 pending pods onto 1,000 Ready nodes, in a real SQLite log:
// read the fleet, plan every pod in memory, bind in batches. The target is
// under 5 s.
func BenchmarkSchedule10kPodsOnto1kNodes(b *testing.B) {
	const (
		nodes = 1000
		pods  = 10000
	)
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		h := newHarness(b, Config{})
		fleet(b, h, nodes, pods)
		b.StartTimer()
		if _, err := h.r.Reconcile(ctx, keyPending); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		waiting, _, err := h.pods.List(ctx, projections.PodFilter{Unbound: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(waiting) != 0 {
			c, _ := waiting[0].Condition(domain.PodConditionScheduled)
			b.Fatalf("%d pods still pending after the pass; the first: %s", len(waiting), c.Message)
		}
	}
	b.ReportMetric(float64(pods)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/pass")
}

// fleet registers n Ready nodes, a fifth of them with fast disks, and
// creates pods pending pods of three sizes, one in ten asking for a fast
// disk, in batches of a thousand per transaction.
func fleet(b *testing.B, h *harness, n, pods int) {
	b.Helper()
	alloc := domain.ResourceList{"cpu": 16000, "memory": 64 * gi, "pods": 110}
	for i := range n {
		labels := map[string]string{"zone": fmt.Sprintf("z%d", i%3)}
		if i%5 == 0 {
			labels["disk"] = "ssd"
		}
		h.node(fmt.Sprintf("node-%04d", i), alloc, labels)
	}
	sizes := []domain.ResourceList{
		{"cpu": 100, "memory": 128 * mi},
		{"cpu": 250, "memory": 512 * mi},
		{"cpu": 500, "memory": gi},
	}
	var batch []domain.Keyed[domain.PodCommand]
	for i := range pods {
		spec := domain.PodSpec{Containers: []domain.Container{{Name: "main", Image: "busybox", Requests: sizes[i%len(sizes)]}}}
		if i%10 == 0 {
			spec.NodeSelector = map[string]string{"disk": "ssd"}
		}
		name := fmt.Sprintf("pod-%05d", i)
		cmd := domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, Spec: spec}
		batch = append(batch, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: "default", Name: name}, Command: cmd})
		if len(batch) == 1000 || i == pods-1 {
			if _, _, err := h.w.PodBatch().ExecuteBatch(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
			batch = nil
		}
	}
}
