package app

import (
	"context"
	"fmt"

	"go.uber.org/fx"

	"herd/domain"
	"herd/projections"
)

// namespaceGate refuses the reconcilers' creates in a namespace that is
// being deleted, or that does not exist, as kube-apiserver's
// NamespaceLifecycle admission refuses every client's: the API checks
// the requests it serves; these executors check what the controllers
// make — pods, a Deployment's ReplicaSets, a CronJob's Jobs, the
// revisions of StatefulSets and DaemonSets — so that none makes
// something new while its namespace is emptied. The refusal is
// Kubernetes' 403 (ErrForbidden) or 404 (ErrNotFound), and nothing is
// written. Only what fx hands the reconcilers is gated: the namespace
// reconciler and the garbage collector delete through the Writer.
var namespaceGate = fx.Decorate(
	func(e domain.Executor[domain.Pod, domain.PodCommand], v *projections.NamespaceView) domain.Executor[domain.Pod, domain.PodCommand] {
		return gated[domain.Pod, domain.PodCommand]{e, namespaceCheck(v, isA[domain.CreatePod, domain.PodCommand])}
	},
	func(e domain.BatchExecutor[domain.Pod, domain.PodCommand], v *projections.NamespaceView) domain.BatchExecutor[domain.Pod, domain.PodCommand] {
		return gatedBatch[domain.Pod, domain.PodCommand]{e, namespaceCheck(v, isA[domain.CreatePod, domain.PodCommand])}
	},
	func(e domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand], v *projections.NamespaceView) domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand] {
		return gated[domain.ReplicaSet, domain.ReplicaSetCommand]{e, namespaceCheck(v, isA[domain.CreateReplicaSet, domain.ReplicaSetCommand])}
	},
	func(e domain.Executor[domain.Job, domain.JobCommand], v *projections.NamespaceView) domain.Executor[domain.Job, domain.JobCommand] {
		return gated[domain.Job, domain.JobCommand]{e, namespaceCheck(v, isA[domain.CreateJob, domain.JobCommand])}
	},
	func(e domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand], v *projections.NamespaceView) domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand] {
		return gated[domain.ControllerRevision, domain.ControllerRevisionCommand]{e,
			namespaceCheck(v, isA[domain.CreateControllerRevision, domain.ControllerRevisionCommand])}
	},
)

// isA reports whether cmd is a T: the kind's create.
func isA[T, C any](cmd C) bool {
	_, ok := any(cmd).(T)
	return ok
}

// admission says which commands create, and whether a namespace
// accepts new objects.
type admission[C any] struct {
	creates func(C) bool
	view    *projections.NamespaceView
}

// namespaceCheck is the admission of the creates that creates tells
// apart by the namespace view v.
func namespaceCheck[C any](v *projections.NamespaceView, creates func(C) bool) admission[C] {
	return admission[C]{creates: creates, view: v}
}

// accepts refuses, in Kubernetes' words, creates in namespace.
func (a admission[C]) accepts(ctx context.Context, key domain.Key) error {
	if err := a.view.AcceptsObjects(ctx, key.Namespace); err != nil {
		return fmt.Errorf("create %s: %w", key, err)
	}
	return nil
}

// gated is an Executor that executes a create only in a namespace that
// accepts it.
type gated[S, C any] struct {
	domain.Executor[S, C]
	admit admission[C]
}

// Execute implements domain.Executor.
func (g gated[S, C]) Execute(ctx context.Context, key domain.Key, cmd C) (S, error) {
	if g.admit.creates(cmd) {
		if err := g.admit.accepts(ctx, key); err != nil {
			var zero S
			return zero, err
		}
	}
	return g.Executor.Execute(ctx, key, cmd)
}

// gatedBatch is a BatchExecutor that executes a batch only when every
// create in it is in a namespace that accepts it: a batch is one unit of
// work.
type gatedBatch[S, C any] struct {
	domain.BatchExecutor[S, C]
	admit admission[C]
}

// ExecuteBatch implements domain.BatchExecutor. A namespace is checked
// once for the batch, however many of its commands create in it.
func (g gatedBatch[S, C]) ExecuteBatch(ctx context.Context, cmds []domain.Keyed[C]) ([]S, []error, error) {
	var checked map[string]bool
	for _, c := range cmds {
		if checked[c.Key.Namespace] || !g.admit.creates(c.Command) {
			continue
		}
		if err := g.admit.accepts(ctx, c.Key); err != nil {
			return nil, nil, err
		}
		if checked == nil {
			checked = map[string]bool{}
		}
		checked[c.Key.Namespace] = true
	}
	return g.BatchExecutor.ExecuteBatch(ctx, cmds)
}
