package daemonset

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/history"
)

// RevisionData is the data of the ControllerRevision of a DaemonSet's
// template, in the API's form (the patch kubectl rollout undo daemonset
// sends back), which the domain does not know: the binary gives the
// conversions'.
type RevisionData func(ds domain.DaemonSet) ([]byte, error)

// revisionKeeper keeps the DaemonSets' ControllerRevisions, as
// Kubernetes' DaemonSet controller does: one for each template, the
// current one the newest, the history trimmed to revisionHistoryLimit.
type revisionKeeper struct {
	reader history.Reader
	cmds   history.Commands
	data   RevisionData
	newUID func() string
}

// keepRevisions makes the revision of ds's template the newest of its
// revisions (created, or renumbered when an old template came back) and
// deletes the oldest beyond its revisionHistoryLimit, but for those its
// pods, owned, are still at. Without a keeper (a reconciler built
// without revisions), it does nothing.
func (r *Reconciler) keepRevisions(ctx context.Context, ds domain.DaemonSet, owned []domain.Pod) error {
	k := r.revs
	if k == nil {
		return nil
	}
	revs, err := history.Claim(ctx, k.reader, k.cmds, ds.Namespace, ds.Spec.Selector, ds.OwnerReference())
	if err != nil {
		return fmt.Errorf("list revisions of daemonset %s: %w", ds, err)
	}
	// The revisions made before herd started are known from here on:
	// their deletion maps to the DaemonSet.
	history.Observe(r.revOwners, revs)
	spec := specChange(ds)
	name := revisionName(ds)
	wctx, err := history.Cause(ctx, revs, ds.Namespace, name, spec)
	if err != nil {
		return err
	}
	current, revs, change, err := history.Ensure(wctx, k.cmds, revs, name, func(number int64) (domain.CreateControllerRevision, error) {
		data, err := k.data(ds)
		if err != nil {
			return domain.CreateControllerRevision{}, reconcilers.Terminal(fmt.Errorf("revision data: %w", err))
		}
		return newRevision(ds, data, number, k.newUID()), nil
	})
	if err != nil {
		return fmt.Errorf("daemonset %s: %w", ds, err)
	}
	if change != history.Unchanged {
		r.log.Info("revision made the newest", zap.String("daemonset", ds.String()), zap.String("revision", current.Name), zap.Int64("number", current.Spec.Revision))
	}
	live := map[string]bool{}
	for _, p := range owned {
		live[p.Labels[domain.LabelControllerRevisionHash]] = true
	}
	keep := func(rev domain.ControllerRevision) bool {
		return rev.Name == current.Name || live[rev.Labels[domain.LabelControllerRevisionHash]]
	}
	limit := int(ds.Spec.RevisionHistoryLimit)
	if len(history.Excess(revs, keep, limit)) == 0 {
		return nil
	}
	// A revision is trimmed when one beyond the limit is made (a new
	// template) or once no pod is at it any more: what moved the
	// DaemonSet's pods, as its status names it.
	tctx, err := reconcilers.BecauseOfCount(ctx, owned, spec)
	if err != nil {
		return err
	}
	deleted, err := history.Truncate(tctx, k.cmds, revs, keep, limit)
	for _, name := range deleted {
		r.log.Info("deleted revision", zap.String("daemonset", ds.String()), zap.String("revision", name))
	}
	if err != nil {
		return fmt.Errorf("daemonset %s: %w", ds, err)
	}
	return nil
}

// WithRevisions makes the reconciler keep the DaemonSets'
// ControllerRevisions, read through reader, written through cmds, their
// data from data; it returns r.
func (r *Reconciler) WithRevisions(reader history.Reader, cmds history.Commands, data RevisionData) *Reconciler {
	r.revs = &revisionKeeper{reader: reader, cmds: cmds, data: data, newUID: func() string { return r.ids.UID() }}
	return r
}
