package deployment

import (
	"testing"

	"herd/reconcilers/reconcilerstest"
)

// TestWatchesEveryEvent: every event of a Deployment but the status it
// records itself reaches it, and every event of a ReplicaSet it controls,
// those the domain adds later included.
func TestWatchesEveryEvent(t *testing.T) {
	h := newHarness(t)
	reconcilerstest.WatchesEveryEvent(t, h.r.Watches())
}
