package reconcilers

import (
	"context"
	"io"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/utils/clock"

	"herd/domain"
)

// quietReconciler succeeds at every key and logs nothing.
type quietReconciler struct{}

func (quietReconciler) Name() string                                   { return "quiet" }
func (quietReconciler) Watches() *Watches                              { return Watch().For(domain.NodeAggregate) }
func (quietReconciler) Reconcile(context.Context, Key) (Result, error) { return Result{}, nil }

// TestAReconcileThatSucceedsBuildsNoLogger: a reconcile that succeeds,
// what a reconciler does for nearly every node that registers, logs
// nothing, so its runner builds no logger for its key and looks up no
// metric series by name; those cost more than the queue's own work.
func TestAReconcileThatSucceedsBuildsNoLogger(t *testing.T) {
	// The logger herd serve builds: JSON at info, whose With copies its
	// encoder.
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), zap.InfoLevel)
	rn := newRunner(quietReconciler{}, nil, clock.RealClock{}, zap.New(core), NewMetrics(prometheus.NewRegistry()), DefaultConfig())
	defer rn.queue.ShutDown()
	ctx := context.Background()
	key := Key{Aggregate: domain.NodeAggregate, Name: "worker-0001"}
	queued := testing.AllocsPerRun(200, func() {
		rn.queue.Add(key)
		rn.queue.Done(key)
		k, _ := rn.queue.Get()
		rn.queue.Done(k)
	})
	reconciled := testing.AllocsPerRun(200, func() {
		rn.queue.Add(key)
		if !rn.processNext(ctx) {
			t.Fatal("the queue shut down")
		}
	})
	if extra := reconciled - queued; extra > 2 {
		t.Errorf("a reconcile that succeeds: %.0f allocations beyond the queue's %.0f, want at most 2", extra, queued)
	}
}
