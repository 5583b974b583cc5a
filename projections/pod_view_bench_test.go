package projections

import (
	"context"
	"fmt"
	"testing"

	"herd/domain"
)

// BenchmarkPodList measures the pod view's reads from its rows, as the
// API's lists and gets and the reconcilers on PostgreSQL make them: one
// pod by key, a node's pods, a workload's pods by controller, and every
// pod, among 2,000 pods on 20 nodes.
func BenchmarkPodList(b *testing.B) {
	w, store, _ := newWriter(b)
	ctx := context.Background()
	const pods, nodes, perBatch = 2000, 20, 200
	for start := 0; start < pods; start += perBatch {
		var batch []domain.Keyed[domain.PodCommand]
		for i := start; i < start+perBatch; i++ {
			create := domain.CreatePod{Namespace: "default", Name: fmt.Sprintf("p%04d", i), UID: fmt.Sprintf("uid-%d", i),
				Owners: []domain.OwnerReference{{Kind: "ReplicaSet", Name: fmt.Sprintf("rs%d", i%10), UID: "u", Controller: true}},
				Spec:   domain.PodSpec{NodeName: fmt.Sprintf("n%02d", i%nodes), Containers: []domain.Container{{Name: "c"}}}}
			batch = append(batch, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: "default", Name: create.Name}, Command: create})
		}
		if _, _, err := w.PodBatch().ExecuteBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	view := NewPodView(store.Log())
	for _, c := range []struct {
		name string
		f    PodFilter
		want int
	}{
		{"node", PodFilter{NodeName: "n03"}, pods / nodes},
		{"controller", PodFilter{Namespace: "default", Controllers: []string{"ReplicaSet/rs3"}}, pods / 10},
		{"all", PodFilter{}, pods},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, _, err := view.List(ctx, c.f)
				if err != nil || len(got) != c.want {
					b.Fatalf("list %+v: %d pods, %v; want %d", c.f, len(got), err, c.want)
				}
			}
		})
	}
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := view.Get(ctx, "default", "p0042"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
