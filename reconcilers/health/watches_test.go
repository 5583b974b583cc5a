package health

import (
	"testing"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/reconcilers/reconcilerstest"
)

// TestWatchesEveryNodeEvent: every event of a node but a plain heartbeat,
// those the domain adds later included, reaches the node's reconcile.
func TestWatchesEveryNodeEvent(t *testing.T) {
	r, err := New(DefaultConfig(), nil, nil, clocktesting.NewFakeClock(reconcilerstest.T0), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	reconcilerstest.WatchesEveryEvent(t, r.Watches())
}
