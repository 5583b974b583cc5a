package disruption

import (
	"testing"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/reconcilers/reconcilerstest"
)

// TestWatchesEveryEvent: every event of a budget but the status it
// records itself reaches it, those the domain adds later included.
func TestWatchesEveryEvent(t *testing.T) {
	r, err := New(DefaultConfig(), &fakeBudgets{}, reconcilerstest.NewPods(nil), fakeReplicaSets{}, &fakeBudgets{}, clocktesting.NewFakeClock(t0), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	reconcilerstest.WatchesEveryEvent(t, r.Watches())
}
