package projections

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"herd/domain"
)

// BenchmarkNodeSeriesUpkeep measures what the per-node series cost a
// heartbeat. "snapshot" is how long a scrape holds the lock commits
// need, at 10,000 nodes. "hook" is the observer alone, as the unit of work calls it
// after each commit, on a fleet of 10,000 nodes; "heartbeat" runs agent
// heartbeats through the unit of work from 32 goroutines (so that group
// commit shares each fsync, as under a fleet's load) without and with the
// series observing. The target: the hook under 5% of a heartbeat.
func BenchmarkNodeSeriesUpkeep(b *testing.B) {
	const fleet = 10_000
	fill := func() (*NodeSeries, []domain.Node) {
		s := NewNodeSeries(nil, nil)
		states := make([]domain.Node, fleet)
		for i := range states {
			states[i] = domain.Node{Name: fmt.Sprintf("node-%05d", i), Kind: domain.KindLinux, Version: 1,
				Capacity: domain.ResourceList{"cpu": 4000}, Metrics: metrics(500).Metrics,
				Conditions: []domain.Condition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}}
			s.observe(states[i], nil)
		}
		return s, states
	}
	// What a scrape holds the lock for: the copy of 10,000 entries.
	b.Run("snapshot", func(b *testing.B) {
		s, _ := fill()
		for b.Loop() {
			if len(s.snapshot()) != fleet {
				b.Fatal("the snapshot lost nodes")
			}
		}
	})
	b.Run("hook", func(b *testing.B) {
		s, states := fill()
		evs := []domain.Event{domain.HeartbeatRecorded{}}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			n := &states[i%fleet]
			n.Version++
			s.observe(*n, evs)
			i++
		}
	})
	for _, observed := range []bool{false, true} {
		b.Run(fmt.Sprintf("heartbeat/series=%v", observed), func(b *testing.B) {
			w, _, clk := newWriter(b)
			if observed {
				NewNodeSeries(w, clk)
			}
			const nodes = 256
			for i := range nodes {
				name := fmt.Sprintf("node-%03d", i)
				do(b, w, clk, name, register(name, domain.KindLinux))
			}
			hb := metrics(500)
			var next atomic.Int64
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					name := fmt.Sprintf("node-%03d", next.Add(1)%nodes)
					if _, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, hb); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
