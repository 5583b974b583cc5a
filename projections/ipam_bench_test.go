package projections

import (
	"fmt"
	"testing"

	"herd/domain"
)

// BenchmarkIPAMAllocate measures one allocation (load the pool, decide the
// lowest free address, append, update the view, commit) in a /16 that
// already has N addresses in use: the cost grows with the pool's use,
// since the decider sees every allocation.
func BenchmarkIPAMAllocate(b *testing.B) {
	for _, inUse := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprintf("inUse=%d", inUse), func(b *testing.B) {
			w, _, clk := newWriter(b)
			const pool = "10.88.0.0/16"
			n, _ := domain.ParseIPPool(pool)
			ctx := b.Context()
			if inUse > 0 {
				if _, err := w.UpdateIPPool(ctx, pool, "", func(domain.IPPool) ([]domain.Event, error) {
					evs := make([]domain.Event, inUse)
					for i := range evs {
						evs[i] = domain.IPAllocated{Pool: pool, Address: n.Address(i).String(), PodUID: fmt.Sprintf("fill-%d", i),
							Namespace: "default", Name: fmt.Sprintf("fill-%d", i), At: clk.Now()}
					}
					return evs, nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				uid := fmt.Sprintf("bench-%d", i)
				if _, err := w.UpdateIPPool(ctx, pool, uid, func(p domain.IPPool) ([]domain.Event, error) {
					return domain.DecideIPPool(p, domain.AllocateIP{PodUID: uid, Namespace: "default", Name: uid}, clk.Now())
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
