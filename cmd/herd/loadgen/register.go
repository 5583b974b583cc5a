package loadgen

import (
	"context"
	"sync/atomic"
)

// registerAll registers every node. With an interval, the nodes already
// registered keep to their schedule while the others register, as
// kubelets do from the moment they have registered: otherwise the first
// nodes of a large fleet would be silent for minutes, past their grace
// period, before the measured window opens. The second phase is those
// heartbeats; it is empty without an interval.
func (g *generator) registerAll(ctx context.Context, all []int) (register, keptAlive Phase) {
	if g.cfg.Interval <= 0 {
		return g.drive(ctx, all, g.register, nil, 0), Phase{}
	}
	registered := make([]atomic.Bool, g.cfg.Nodes)
	done := make(chan struct{})
	kept := make(chan Phase, 1)
	go func() {
		kept <- g.drive(ctx, all, func(ctx context.Context, i int, s *stats) {
			if registered[i].Load() {
				g.beat(ctx, i, s)
			}
		}, done, g.cfg.Interval)
	}()
	register = g.drive(ctx, all, func(ctx context.Context, i int, s *stats) {
		g.register(ctx, i, s)
		registered[i].Store(true)
	}, nil, 0)
	close(done)
	return register, <-kept
}
