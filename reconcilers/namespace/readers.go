package namespace

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// Reader is what the reconciler reads of the namespaces: one per
// key, and on resync those being deleted.
type Reader interface {
	// Get returns the named namespace, or domain.ErrNotFound.
	Get(ctx context.Context, name string) (domain.Namespace, error)
	// Terminating returns the namespaces being deleted.
	Terminating(ctx context.Context) ([]domain.Namespace, error)
}

// PodLister is what the reconciler reads of the pods: herd's in one
// namespace.
type PodLister interface {
	// List returns the pods that match f, and the view's resource
	// version.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// ConfigMapLister lists the ConfigMaps of one namespace.
type ConfigMapLister interface {
	// List returns the namespace's ConfigMaps, and the view's resource
	// version.
	List(ctx context.Context, namespace string) ([]domain.ConfigMap, int64, error)
}

// LeaseLister lists the leases of one namespace.
type LeaseLister interface {
	// List returns the namespace's leases, and the view's resource
	// version.
	List(ctx context.Context, namespace string) ([]domain.Lease, int64, error)
}

var (
	_ Reader          = (*projections.NamespaceView)(nil)
	_ PodLister       = (*projections.PodView)(nil)
	_ ConfigMapLister = (*projections.ConfigMapView)(nil)
	_ LeaseLister     = (*projections.LeaseView)(nil)
)
