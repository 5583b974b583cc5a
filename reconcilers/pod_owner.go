package reconcilers

import (
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
)

// PodOwner is what the reconcilers of the kinds that make pods under
// generated names (ReplicaSets, Jobs) share: the kind itself (Kind: its
// name, its resync), the pods its objects control (Controlled), the
// identities new pods take, the clock and the log. Such a reconciler
// embeds it and says only what is its own: what it reads and writes of
// its objects, what it watches, what a reconcile does.
type PodOwner[T Named] struct {
	Kind[T]
	// Controlled reads the pods the kind's objects control and collects
	// those of one that is gone.
	Controlled *Controlled
	// IDs name the pods it creates; tests replace them.
	IDs   Identities
	Clock clock.PassiveClock
	Log   *zap.Logger
}

// NewPodOwner is the reconciler called name (its log named so too) over
// the objects of aggregate, listed by objects and looked at again every
// period, whose objects control pods as owner references name them by
// kind ("ReplicaSet"), read from pods and written through writes; its
// pods take RandomIdentities.
func NewPodOwner[T Named](name, kind string, aggregate *domain.Aggregate, period time.Duration, objects Lister[T],
	pods PodLister, writes domain.BatchExecutor[domain.Pod, domain.PodCommand], clk clock.PassiveClock, log *zap.Logger) PodOwner[T] {
	log = log.Named(name)
	return PodOwner[T]{
		Kind: NewKind(name, aggregate, period, objects), Controlled: NewControlled(kind, pods, writes, 0, log),
		IDs: RandomIdentities(), Clock: clk, Log: log,
	}
}
