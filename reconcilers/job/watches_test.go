package job

import (
	"testing"

	"herd/reconcilers/reconcilerstest"
)

// TestWatchesEveryEvent: every event of a Job but what it records itself
// reaches it, and every event of a pod it controls but the steps no owner
// counts, those the domain adds later included.
func TestWatchesEveryEvent(t *testing.T) {
	f := newFixture(t, nil)
	reconcilerstest.WatchesEveryEvent(t, f.r.Watches())
}
