package replicaset

import (
	"testing"

	"herd/reconcilers/reconcilerstest"
)

// TestWatchesEveryEvent: every event of a ReplicaSet but the status it
// records itself reaches it, and every event of a pod it controls but the
// steps no owner counts, those the domain adds later included.
func TestWatchesEveryEvent(t *testing.T) {
	w := newWorld(t, DefaultConfig(), nil, nil, at(0))
	reconcilerstest.WatchesEveryEvent(t, w.r.Watches())
}
