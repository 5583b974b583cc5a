package projections

import (
	"fmt"
	"testing"

	"herd/domain"
)

// fillPool hands out the first inUse addresses of pool in one append
// (recorded events: no command allocates thousands at once), then gives
// back every step-th of them (none for step 0): a pool that many pods
// have come and gone from.
func fillPool(b *testing.B, w *Writer, pool string, inUse, step int) {
	b.Helper()
	n, _ := domain.ParseIPPool(pool)
	ctx := b.Context()
	if inUse == 0 {
		return
	}
	var evs []domain.Event
	for i := range inUse {
		evs = append(evs, domain.IPAllocated{Pool: pool, Address: n.Address(i).String(), PodUID: fmt.Sprintf("fill-%d", i),
			Namespace: "default", Name: fmt.Sprintf("fill-%d", i), At: t0})
	}
	for i := 0; step > 0 && i < inUse; i += step {
		evs = append(evs, domain.IPReleased{Pool: pool, Address: n.Address(i).String(), PodUID: fmt.Sprintf("fill-%d", i),
			Namespace: "default", Name: fmt.Sprintf("fill-%d", i), Reason: "PodFinalized", At: t0})
	}
	if err := w.AppendRecorded(ctx, domain.IPPoolStream(pool), evs); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkIPAMAllocate measures one allocation (read the pool's row and
// the pod's allocations, decide the lowest free address, append, update
// the view, commit) in a /16 that already has N addresses in use. Only
// the pool's row and the pod's rows are read, so the cost should not grow
// with N; "holes" has every other address of the N given back, the most
// runs of free addresses the pool's row can keep.
func BenchmarkIPAMAllocate(b *testing.B) {
	for _, c := range []struct {
		inUse, step int
		name        string
	}{{0, 0, "inUse=0"}, {1000, 0, "inUse=1000"}, {10000, 0, "inUse=10000"}, {10000, 2, "inUse=10000,holes=5000"}} {
		b.Run(c.name, func(b *testing.B) {
			w, _, _ := newWriter(b)
			const pool = "10.88.0.0/16"
			fillPool(b, w, pool, c.inUse, c.step)
			ctx := b.Context()
			b.ResetTimer()
			for i := range b.N {
				uid := fmt.Sprintf("bench-%d", i)
				if _, err := w.IPPoolCommands().Execute(ctx, domain.Key{Name: pool}, domain.AllocateIP{PodUID: uid, Namespace: "default", Name: uid}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIPAMAllocateBatch allocates 500 pods in one unit of work, as
// a controller's burst would, in a /16 with 10,000 addresses in use:
// ns/op is per pod.
func BenchmarkIPAMAllocateBatch(b *testing.B) {
	w, _, _ := newWriter(b)
	const (
		pool  = "10.88.0.0/16"
		burst = 500
	)
	fillPool(b, w, pool, 10000, 0)
	ctx := b.Context()
	b.ResetTimer()
	for i := 0; i < b.N; i += burst {
		var cmds []domain.Keyed[domain.IPPoolCommand]
		for j := i; j < min(i+burst, b.N); j++ {
			uid := fmt.Sprintf("bench-%d", j)
			cmds = append(cmds, domain.Keyed[domain.IPPoolCommand]{Key: domain.Key{Name: pool},
				Command: domain.AllocateIP{PodUID: uid, Namespace: "default", Name: uid}})
		}
		if _, _, err := w.IPPoolBatch().ExecuteBatch(ctx, cmds); err != nil {
			b.Fatal(err)
		}
	}
}
