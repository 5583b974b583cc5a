package loadgen

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// turn is one node's turn: it sends what node i sends and records each
// request in s.
type turn func(ctx context.Context, i int, s *stats)

// one is the turn of a node that sends a single request.
func one(send func(context.Context, int) outcome) turn {
	return func(ctx context.Context, i int, s *stats) { sendOne(ctx, i, s, send) }
}

// sendOne sends node i's request and records it, unless the operator
// cancelled the run meanwhile (that is no refusal of herd's).
func sendOne(ctx context.Context, i int, s *stats, send func(context.Context, int) outcome) outcome {
	t0 := time.Now()
	o := send(ctx, i)
	if ctx.Err() == nil {
		s.record(o, time.Since(t0))
	}
	return o
}

// registering is the turn of a node that registers with a single
// request, tried until herd admits it (untilAdmitted).
func registering(send func(context.Context, int) outcome) turn {
	return func(ctx context.Context, i int, s *stats) {
		untilAdmitted(ctx, func() outcome { return sendOne(ctx, i, s, send) })
	}
}

// untilAdmitted runs try, and again after the Retry-After of each 429
// it gets, as a kubelet's registerWithAPIServer tries until it is
// registered: a registration herd shed for load is delayed, not given
// up. Each try records itself, so the refusals show in the report.
func untilAdmitted(ctx context.Context, try func() outcome) outcome {
	return retryShed(ctx, -1, try)
}

// clientGoRetries is how many times client-go's REST client sends a
// request again after a 429 with Retry-After, by default (its
// maxRetries), whatever the verb.
const clientGoRetries = 10

// asClientGo runs try, and again after the Retry-After of each 429 it
// gets, up to clientGoRetries times, as the REST client under a kubelet's
// lease controller and status reports does: a heartbeat herd shed is sent
// again once its Retry-After has passed. A paced node waits alone, in a
// turn of its own (drive).
func asClientGo(ctx context.Context, try func() outcome) outcome {
	return retryShed(ctx, clientGoRetries, try)
}

// retryShed runs try, and again after the Retry-After of each 429, up to
// retries times (no bound when negative), until ctx ends or the phase it
// runs in stops (phaseStop).
func retryShed(ctx context.Context, retries int, try func() outcome) outcome {
	o := try()
	for n := 0; (retries < 0 || n < retries) && o.status == http.StatusTooManyRequests &&
		sleepUntil(ctx, phaseStop(ctx), time.Now().Add(o.retryAfter)); n++ {
		o = try()
	}
	return o
}

// drive runs one worker per connection and gives each of a worker's
// nodes its turn in turn: one pass when stop is nil, else round after
// round until stop is closed. With an interval, the heartbeat of round k
// of the node at place j of nodes is due at
// start + k·interval + j·interval/len(nodes), so the fleet's heartbeats
// are spread evenly, and each turn runs on its own, as each kubelet keeps
// its own timer: a node whose request waits (a slow answer, a Retry-After)
// does not hold back the worker's other nodes, and its next turn is
// skipped (counted) if it is still running then, as a kubelet's next sync
// waits for the one before. The requests in flight are still bounded by
// the connections. Without an interval, each worker sends as fast as herd
// answers, one request at a time. How late each turn began behind its due
// time is recorded as the schedule's lag. A request in flight when stop
// closes is awaited and counted. With several servers, the phase is
// broken down by server too.
func (g *generator) drive(ctx context.Context, nodes []int, send turn, stop <-chan struct{}, interval time.Duration) Phase {
	ctx = context.WithValue(ctx, stopKey{}, stop)
	shares := g.shares(nodes)
	results := make([]stats, len(shares))
	start := time.Now()
	var wg, turns sync.WaitGroup
	running := make([]atomic.Bool, len(nodes))
	for w, share := range shares {
		wg.Go(func() {
			s := &results[w]
			for round := 0; ; round++ {
				for _, slot := range share.slots {
					if stopped(ctx, stop) {
						return
					}
					if interval <= 0 {
						send(ctx, nodes[slot], s)
						if ctx.Err() != nil {
							return
						}
						continue
					}
					due := start.Add(time.Duration(round)*interval + interval*time.Duration(slot)/time.Duration(len(nodes)))
					if !sleepUntil(ctx, stop, due) {
						return
					}
					if !running[slot].CompareAndSwap(false, true) {
						s.skip()
						continue
					}
					s.lag.record(time.Since(due))
					turns.Go(func() {
						defer running[slot].Store(false)
						send(ctx, nodes[slot], s)
					})
				}
				if stop == nil {
					return
				}
			}
		})
	}
	wg.Wait()
	turns.Wait()
	elapsed := time.Since(start)
	var total stats
	byServer := make([]stats, len(g.cfg.Servers))
	for w := range results {
		total.merge(&results[w])
		byServer[shares[w].server].merge(&results[w])
	}
	p := total.phase(elapsed)
	if len(byServer) > 1 {
		p.Servers = make([]Phase, len(byServer))
		for s := range byServer {
			p.Servers[s] = byServer[s].phase(elapsed)
		}
	}
	return p
}

// stopKey is where drive leaves, in its turns' context, the channel
// that stops its phase.
type stopKey struct{}

// phaseStop is the channel that stops the phase ctx's turn runs in (nil,
// never closed, outside one), so that a turn waiting out a Retry-After
// does not outlast its phase.
func phaseStop(ctx context.Context) <-chan struct{} {
	stop, _ := ctx.Value(stopKey{}).(<-chan struct{})
	return stop
}

// share is one worker's part of a phase: the server it talks to, and its
// nodes as their places in the nodes driven.
type share struct {
	server int
	slots  []int
}

// shares deals nodes out to the Connections workers. Worker w talks to
// server w mod S only (S servers), so that each connection stays with one
// server, and takes every c-th of that server's nodes (c the workers of
// that server). With one server, or Connections a multiple of S, node
// place j goes to worker j mod Connections. Workers left without a node
// are dropped.
func (g *generator) shares(nodes []int) []share {
	conns, n := g.cfg.Connections, len(g.cfg.Servers)
	all := make([]share, conns)
	for w := range all {
		all[w].server = w % n
	}
	workers, dealt := make([]int, n), make([]int, n)
	for s := range workers {
		workers[s] = (conns - s + n - 1) / n // s, s+n, s+2n… below conns
	}
	for j, i := range nodes {
		s := g.cfg.server(i)
		w := s + dealt[s]%workers[s]*n
		dealt[s]++
		all[w].slots = append(all[w].slots, j)
	}
	return slices.DeleteFunc(all, func(sh share) bool { return len(sh.slots) == 0 })
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
