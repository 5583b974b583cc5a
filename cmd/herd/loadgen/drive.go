package loadgen

import (
	"context"
	"sync"
	"time"
)

// turn is one node's turn: it sends what node i sends and records each
// request in s.
type turn func(ctx context.Context, i int, s *stats)

// one is the turn of a node that sends a single request.
func one(send func(context.Context, int) outcome) turn {
	return func(ctx context.Context, i int, s *stats) {
		t0 := time.Now()
		o := send(ctx, i)
		if ctx.Err() != nil {
			return // cancelled by the operator, not refused by herd
		}
		s.record(o, time.Since(t0))
	}
}

// drive runs one worker per connection, node i going to worker i mod
// Connections, and gives each of a worker's nodes its turn in turn: one
// pass when stop is nil, else round after round until stop is closed.
// With an interval, node i's heartbeat of round k is due at
// start + k·interval + i·interval/len(nodes), so the fleet's heartbeats
// are spread evenly; without one, each worker sends as fast as herd
// answers. How late each turn began behind its due time is recorded as
// the schedule's lag. A request in flight when stop closes is awaited and
// counted.
func (g *generator) drive(ctx context.Context, nodes []int, send turn, stop <-chan struct{}, interval time.Duration) Phase {
	conns := g.cfg.Connections
	shares := make([][]int, min(conns, len(nodes)))
	for j, i := range nodes {
		shares[j%conns] = append(shares[j%conns], i)
	}
	results := make([]stats, len(shares))
	start := time.Now()
	var wg sync.WaitGroup
	for w, share := range shares {
		wg.Go(func() {
			s := &results[w]
			for round := 0; ; round++ {
				for k, i := range share {
					if stopped(ctx, stop) {
						return
					}
					if interval > 0 {
						slot := w + k*conns // the node's place in nodes
						due := start.Add(time.Duration(round)*interval + interval*time.Duration(slot)/time.Duration(len(nodes)))
						if !sleepUntil(ctx, stop, due) {
							return
						}
						s.lag.record(time.Since(due))
					}
					send(ctx, i, s)
					if ctx.Err() != nil {
						return
					}
				}
				if stop == nil {
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var total stats
	for i := range results {
		total.merge(&results[i])
	}
	return total.phase(elapsed)
}

// stopped is true once ctx ended or stop closed.
func stopped(ctx context.Context, stop <-chan struct{}) bool {
	select {
	case <-ctx.Done():
		return true
	case <-stop:
		return true
	default:
		return false
	}
}

// sleepUntil waits for t; false when stopped first.
func sleepUntil(ctx context.Context, stop <-chan struct{}, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return !stopped(ctx, stop)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	case <-timer.C:
		return true
	}
}
