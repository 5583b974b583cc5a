package namespace

import (
	"context"
	"errors"
	"fmt"

	"herd/domain"
)

// Objects is one kind of object a namespace holds beside its pods,
// ConfigMaps and leases — a Deployment, a Job, a disruption budget — which
// the namespace's deletion deletes, as Kubernetes' namespace controller
// deletes every namespaced resource it discovers.
type Objects struct {
	// deleted is the event of an object of the kind leaving the log,
	// which may be what the namespace waits for.
	deleted domain.Event
	// deleteAll asks for the deletion of the namespace's objects of the
	// kind not being deleted yet, and returns how many it found: those
	// it deleted now, and those whose deletion waits. A namespace goes
	// only on a pass that finds none, so that an object a controller
	// made while the namespace was being emptied is deleted too.
	deleteAll func(ctx context.Context, namespace string) (int, error)
}

// object is what the reconciler reads of an object on the object model.
type object interface {
	Key() domain.Key
	Exists() bool
	Deleting() bool
}

// ObjectsOf is the kind's Objects: list lists a namespace's objects of
// it, execute runs its commands, deleted is the event of one's removal,
// and del is its deletion, in the
// background (its dependents follow it through their own controllers and
// the garbage collector, and this reconciler deletes the pods anyway).
func ObjectsOf[T object, C any](kind string, list func(ctx context.Context, namespace string) ([]T, int64, error),
	execute domain.Executor[T, C], deleted domain.Event, del C) Objects {
	return Objects{deleted: deleted, deleteAll: func(ctx context.Context, namespace string) (int, error) {
		objs, _, err := list(ctx, namespace)
		if err != nil {
			return 0, fmt.Errorf("list %ss of namespace %s: %w", kind, namespace, err)
		}
		var (
			found int
			errs  []error
		)
		for _, o := range objs {
			if !o.Exists() {
				continue
			}
			found++
			if o.Deleting() {
				continue
			}
			if _, err := execute.Execute(ctx, o.Key(), del); err != nil && !errors.Is(err, domain.ErrNotFound) {
				errs = append(errs, fmt.Errorf("delete %s %s/%s: %w", kind, namespace, o.Key().Name, err))
			}
		}
		return found, errors.Join(errs...)
	}}
}
