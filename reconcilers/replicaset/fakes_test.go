package replicaset

import (
	"time"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// fakeReplicaSets is a Reader over a set of ReplicaSets, and their
// Executor (reconcilerstest.Store).
type fakeReplicaSets = reconcilerstest.Store[domain.ReplicaSet, domain.ReplicaSetCommand]

// fakePods is a PodLister over a set of pods, and their PodCommands
// (reconcilerstest.Pods).
type fakePods = reconcilerstest.Pods

var (
	_ Reader                                                       = (*fakeReplicaSets)(nil)
	_ domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand] = (*fakeReplicaSets)(nil)
	_ PodLister                                                    = (*fakePods)(nil)
	_ PodCommands                                                  = (*fakePods)(nil)
)

func newFakeReplicaSets(now func() time.Time, sets ...domain.ReplicaSet) *fakeReplicaSets {
	return reconcilerstest.NewStore(now, domain.DecideReplicaSet, domain.EvolveReplicaSet, sets...)
}

func newFakePods(now func() time.Time, pods ...domain.Pod) *fakePods {
	return reconcilerstest.NewPods(now, pods...)
}
