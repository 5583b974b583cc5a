package kubelet

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"herd/domain"
	"herd/projections"
)

// NamespaceStore is where the namespaces of observed pods are kept:
// projections.Writer and projections.NamespaceView together.
type NamespaceStore interface {
	domain.NamespaceRepository
	// AcceptsObjects says whether the namespace exists and is Active.
	AcceptsObjects(ctx context.Context, name string) error
}

// namespaceStore joins the writer and the namespace view into a
// NamespaceStore.
type namespaceStore struct {
	w    *projections.Writer
	view *projections.NamespaceView
}

func (s namespaceStore) UpdateNamespace(ctx context.Context, name string, update func(domain.Namespace) ([]domain.Event, error)) (domain.Namespace, error) {
	return s.w.UpdateNamespace(ctx, name, update)
}

func (s namespaceStore) AcceptsObjects(ctx context.Context, name string) error {
	return s.view.AcceptsObjects(ctx, name)
}

// ensureNamespaces makes sure the namespace of every pod a kubelet
// reports exists before the pods are recorded. A kubelet's pods are what
// runs, not a request: herd does not refuse them as it refuses a client's
// create in a namespace it does not know, but creates the namespace ("in
// use"), so that every pod herd shows lives in a namespace herd shows. A
// terminating namespace takes them too. Each namespace costs one read
// when the kubelet's pods changed (an unchanged list is not delivered);
// a write only when it is missing.
func (c *Commands) ensureNamespaces(ctx context.Context, pods []domain.ObservePod) error {
	if c.Namespaces == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, op := range pods {
		if seen[op.Namespace] {
			continue
		}
		seen[op.Namespace] = true
		err := c.Namespaces.AcceptsObjects(ctx, op.Namespace)
		if !errors.Is(err, domain.ErrNotFound) {
			continue // Active, Terminating, or a read error the write below would meet too
		}
		cmd := domain.EnsureNamespace{Name: op.Namespace, UID: uuid.NewString(), Reason: domain.NamespaceReasonInUse}
		now := c.Clock.Now()
		if _, err := c.Namespaces.UpdateNamespace(ctx, op.Namespace, func(ns domain.Namespace) ([]domain.Event, error) {
			return domain.DecideNamespace(ns, cmd, now)
		}); err != nil {
			return fmt.Errorf("namespace %s of the kubelet's pods: %w", op.Namespace, err)
		}
	}
	return nil
}
