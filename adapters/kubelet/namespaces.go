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
	domain.Executor[domain.Namespace, domain.NamespaceCommand]
	// AcceptsObjects says whether the namespace exists and is Active.
	AcceptsObjects(ctx context.Context, name string) error
}

// namespaceStore joins the writer and the namespace view into a
// NamespaceStore.
type namespaceStore struct {
	w    *projections.Writer
	view *projections.NamespaceView
}

func (s namespaceStore) Execute(ctx context.Context, key domain.Key, cmd domain.NamespaceCommand) (domain.Namespace, error) {
	return s.w.NamespaceCommands().Execute(ctx, key, cmd)
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
		if _, err := c.Namespaces.Execute(ctx, domain.Key{Name: op.Namespace}, cmd); err != nil {
			return fmt.Errorf("namespace %s of the kubelet's pods: %w", op.Namespace, err)
		}
	}
	return nil
}
