package daemonset

import (
	"context"
	"maps"
	"slices"
	"time"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// fakeDaemonSets is a Reader over a set of DaemonSets, and their Executor
// (reconcilerstest.Store).
type fakeDaemonSets = reconcilerstest.Store[domain.DaemonSet, domain.DaemonSetCommand]

// fakePods is a PodLister over a set of pods, and their PodCommands
// (reconcilerstest.Pods).
type fakePods = reconcilerstest.Pods

var (
	_ Reader                                                     = (*fakeDaemonSets)(nil)
	_ domain.Executor[domain.DaemonSet, domain.DaemonSetCommand] = (*fakeDaemonSets)(nil)
	_ PodLister                                                  = (*fakePods)(nil)
	_ PodCommands                                                = (*fakePods)(nil)
)

func newFakeDaemonSets(now func() time.Time, sets ...domain.DaemonSet) *fakeDaemonSets {
	return reconcilerstest.NewStore(now, domain.DecideDaemonSet, domain.EvolveDaemonSet, sets...)
}

func newFakePods(now func() time.Time, pods ...domain.Pod) *fakePods {
	return reconcilerstest.NewPods(now, pods...)
}

// fakeNodes is a NodeLister over a set of nodes.
type fakeNodes struct {
	nodes map[string]domain.Node
	lists int
}

var _ NodeLister = (*fakeNodes)(nil)

func (f *fakeNodes) List(context.Context) ([]domain.Node, int64, error) {
	f.lists++
	var out []domain.Node
	for _, name := range slices.Sorted(maps.Keys(f.nodes)) {
		if n := f.nodes[name]; n.Exists() {
			out = append(out, n)
		}
	}
	return out, 0, nil
}
