package projections

import (
	"context"
	"testing"
	"time"

	"herd/domain"
)

// BenchmarkExecuteHeartbeat compares a node's plain heartbeat issued
// through Execute with the same heartbeat through a closure of the
// caller's own around the unit of work, as every caller wrote it before
// Execute: the one command path must cost a heartbeat no more.
func BenchmarkExecuteHeartbeat(b *testing.B) {
	w, _, clk := newWriter(b)
	do(b, w, clk, "n1", register("n1", domain.KindLinux))
	ctx := context.Background()
	b.Run("closure", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			clk.Step(time.Second)
			cmd, now := metrics(500), clk.Now()
			if _, err := w.UpdateNode(ctx, "n1", func(n domain.Node) ([]domain.Event, error) {
				return domain.DecideNode(n, cmd, now)
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("execute", func(b *testing.B) {
		nodes := w.NodeCommands()
		b.ReportAllocs()
		for b.Loop() {
			clk.Step(time.Second)
			if _, err := nodes.Execute(ctx, domain.Key{Name: "n1"}, metrics(500)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
