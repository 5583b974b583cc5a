package zones

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// Pods is where the reconciler reads the pods it runs and the nodes they
// are bound to, and reports what became of them: herd's views and unit of
// work inside herd serve (Local), herd's API inside an agent.
type Pods interface {
	// Pod returns the pod; an error matching domain.ErrNotFound when
	// there is none.
	Pod(ctx context.Context, namespace, name string) (domain.Pod, error)
	// List returns herd's own pods bound to node, or bound to any node
	// when node is "".
	List(ctx context.Context, node string) ([]domain.Pod, error)
	// Node returns the node; an error matching domain.ErrNotFound when
	// there is none.
	Node(ctx context.Context, name string) (domain.Node, error)
	// UpdateStatus reports a status of the pod namespace/name. decide sees
	// the pod as it stands (one that does not Exist when it is gone) and
	// returns the status to record, or false to record nothing; the
	// decision and the write are one step, so a pod that changed in
	// between is decided on again.
	UpdateStatus(ctx context.Context, namespace, name string, decide func(domain.Pod) (domain.PodStatus, bool)) error
}

// Local is Pods on herd's own views and unit of work, for the reconciler
// inside herd serve.
type Local struct {
	// Commands is how a status is recorded.
	Commands domain.Executor[domain.Pod, domain.PodCommand]
	Pods     PodReader
	Nodes    NodeReader
}

var _ Pods = Local{}

// PodReader is what Local reads of the pods: one pod, and herd's bound
// to a node. herd serve gives it the pod view that remembers
// (projections.PodView.Remembering): a node's change then reads no pod
// row.
type PodReader interface {
	// Get returns the pod, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.Pod, error)
	// Pods returns the pods that match f, by namespace and name.
	Pods(ctx context.Context, f projections.PodFilter) ([]domain.Pod, error)
}

// NodeReader is what Local reads of the nodes: the one a pod is bound to.
type NodeReader interface {
	// Get returns the named node, or domain.ErrNotFound.
	Get(ctx context.Context, name string) (domain.Node, error)
}

var (
	_ PodReader  = (*projections.PodView)(nil)
	_ NodeReader = (*projections.NodeView)(nil)
)

// Pod implements Pods.
func (l Local) Pod(ctx context.Context, namespace, name string) (domain.Pod, error) {
	return l.Pods.Get(ctx, namespace, name)
}

// List implements Pods.
func (l Local) List(ctx context.Context, node string) ([]domain.Pod, error) {
	herd := domain.SourceHerd
	return l.Pods.Pods(ctx, projections.PodFilter{NodeName: node, Source: &herd})
}

// Node implements Pods.
func (l Local) Node(ctx context.Context, name string) (domain.Node, error) {
	return l.Nodes.Get(ctx, name)
}

// UpdateStatus implements Pods: the decision runs inside the pod's unit of
// work.
func (l Local) UpdateStatus(ctx context.Context, namespace, name string, decide func(domain.Pod) (domain.PodStatus, bool)) error {
	_, err := l.Commands.Execute(ctx, domain.Key{Namespace: namespace, Name: name}, domain.PodFrom(func(p domain.Pod) (domain.PodCommand, error) {
		st, ok := decide(p)
		if !ok {
			return nil, nil
		}
		return domain.UpdatePodStatus{Status: st}, nil
	}))
	return err
}
