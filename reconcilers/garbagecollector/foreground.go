package garbagecollector

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
)

// deletingOwner is an owner being deleted in the foreground, as the
// collector finishes its deletion.
type deletingOwner struct {
	namespace, name, uid string
}

// blocks says whether reference o of a dependent that exists holds its
// owner's deletion in the foreground, as Kubernetes' foregroundDeletion
// finalizer does for a dependent with blockOwnerDeletion: true. A
// controller reference holds it too, whether it says so or not: herd's
// workload controllers always waited for what they control, and
// references they wrote before they set blockOwnerDeletion still lack it.
func blocks(o domain.OwnerReference) bool { return o.BlockOwnerDeletion || o.Controller }

// finishForeground finishes the deletion of every owner of the namespace
// being deleted in the foreground that no dependent blocks any more: the
// foregroundDeletion finalizer comes off only once every dependent with
// blockOwnerDeletion is gone, whatever its kind (Kubernetes'
// processDeletingDependentsItem). blocked are the uids some dependent
// still blocks; it is complete only when every kind was listed, which
// the caller checks.
func (r *Reconciler) finishForeground(ctx context.Context, namespace string, blocked map[string]bool) error {
	var errs []error
	for _, k := range r.owners {
		owners, err := k.deleting(ctx, namespace)
		if err != nil {
			errs = append(errs, fmt.Errorf("list %s being deleted in %s: %w", k.name, namespace, err))
			continue
		}
		for _, o := range owners {
			if blocked[o.uid] {
				continue
			}
			if err := k.finish(ctx, o); err != nil {
				errs = append(errs, fmt.Errorf("finish the deletion of %s %s/%s, its dependents gone: %w", k.name, o.namespace, o.name, err))
				continue
			}
			r.log.Info("deleted an owner deleted in the foreground, its blocking dependents gone",
				zap.String("object", k.name+" "+o.namespace+"/"+o.name))
		}
	}
	return errors.Join(errs...)
}
