package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// PodView answers queries about pods from the pod view.
type PodView struct {
	db *viewstore.DB
	// w, when set, answers Pods from the Writer's memory of the pods it
	// committed where it can (Remembering).
	w *Writer
}

// NewPodView returns a PodView reading the views beside log.
func NewPodView(log events.Log) *PodView {
	return &PodView{db: viewstore.NewDB(log)}
}

// Get returns the pod, or domain.ErrNotFound when it does not exist or was
// finalized.
func (v *PodView) Get(ctx context.Context, namespace, name string) (domain.Pod, error) {
	p, err := loadPod(ctx, v.db, namespace, name)
	if err == nil && p.Finalized {
		return domain.Pod{}, fmt.Errorf("pod %q: %w", namespace+"/"+name, domain.ErrNotFound)
	}
	return p, err
}

// GetIncludingFinalized returns the pod even when it was finalized (its
// last state), or domain.ErrNotFound when herd never saw it.
func (v *PodView) GetIncludingFinalized(ctx context.Context, namespace, name string) (domain.Pod, error) {
	return loadPod(ctx, v.db, namespace, name)
}

// PodFilter narrows a pod list. Zero values do not filter.
type PodFilter struct {
	// Namespace keeps the pods of one namespace.
	Namespace string
	// NodeName keeps the pods bound to one node; Unbound keeps the pods
	// bound to none.
	NodeName string
	Unbound  bool
	// Phase keeps the pods in one phase.
	Phase domain.PodPhase
	// Source keeps herd's own pods, or a kubelet's observed ones.
	Source *domain.PodSource
	// Terminating keeps only the pods being deleted.
	Terminating bool
	// Controllers, when not nil, keeps the pods whose controller is one
	// of these, each "Kind/name" as ControllerOf says it, "" for the pods
	// without one: a workload's own pods and the orphans it may adopt,
	// read through an index rather than the whole namespace.
	Controllers []string
}

// List returns the pods that match f, by namespace and name, and the log
// head at the moment of reading (the list's resourceVersion), both from
// one statement.
func (v *PodView) List(ctx context.Context, f PodFilter) ([]domain.Pod, int64, error) {
	return decodePods(podRows.List(ctx, v.db, storeFilter(f)))
}

// storeFilter is f as the pod view's table takes it.
func storeFilter(f PodFilter) viewstore.PodFilter {
	sf := viewstore.PodFilter{
		Namespace: f.Namespace, NodeName: f.NodeName, Unbound: f.Unbound, Phase: string(f.Phase),
		Terminating: f.Terminating, Controllers: f.Controllers,
	}
	if f.Source != nil {
		sf.BySource, sf.Source = true, string(*f.Source)
	}
	return sf
}
