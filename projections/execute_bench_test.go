package projections

import (
	"context"
	"testing"
	"time"

	"herd/domain"
)

// BenchmarkExecuteHeartbeat measures a node's plain heartbeat issued
// through Execute, the one command path. (Its "closure" twin, the same
// heartbeat through a closure of the caller's own around the unit of
// work, went with the closures themselves.)
func BenchmarkExecuteHeartbeat(b *testing.B) {
	w, _, clk := newWriter(b)
	do(b, w, clk, "n1", register("n1", domain.KindLinux))
	ctx := context.Background()
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
