package daemonset

import (
	"testing"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// TestWatchesEveryEvent: every event of a DaemonSet but the status it
// records itself reaches it, and every event of a pod it controls but the
// steps no owner counts, those the domain adds later included.
func TestWatchesEveryEvent(t *testing.T) {
	g := newRig(t, []domain.DaemonSet{logsDS()}, nil)
	reconcilerstest.WatchesEveryEvent(t, g.r.Watches())
}
