package statefulset

import (
	"context"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/history"
)

// revisions are a StatefulSet's ControllerRevisions as one reconcile
// reads them: every one it owns, by revision number; the update revision
// (its template now) and the current one (what the pods below the
// partition are made from), with the current one's template.
type revisions struct {
	owned           []domain.ControllerRevision
	update, current domain.ControllerRevision
	currentTemplate domain.PodTemplate
}

// revisions finds or makes the StatefulSet's update revision, as
// Kubernetes' getStatefulSetRevisions does: the revision of its template
// if it has one, renumbered past every other when it is not the newest
// (an old template come back, as kubectl rollout undo does it), else a
// new revision numbered past every other. The current revision is the one
// the status names, if it is still kept; otherwise the update revision.
func (r *Reconciler) revisions(ctx context.Context, s domain.StatefulSet) (revisions, error) {
	owned, err := history.Claim(ctx, r.revs.Reader, r.revs.Cmds, s.Namespace, s.Spec.Selector, s.OwnerReference())
	if err != nil {
		return revisions{}, fmt.Errorf("list revisions of statefulset %s: %w", s, err)
	}
	// The revisions made before herd started are known from here on:
	// their deletion maps to the StatefulSet.
	history.Observe(r.revOwners, owned)
	spec := reconcilers.SpecChange(s.Stream(), s.Version, domain.StatefulSetCreated{}, domain.StatefulSetChanged{})
	name := Revision(s)
	wctx, err := history.Cause(ctx, owned, s.Namespace, name, spec)
	if err != nil {
		return revisions{}, err
	}
	var out revisions
	var change history.Change
	out.update, out.owned, change, err = history.Ensure(wctx, r.revs.Cmds, owned, name, func(number int64) (domain.CreateControllerRevision, error) {
		data, err := r.revs.Codec.Data(s)
		if err != nil {
			return domain.CreateControllerRevision{}, reconcilers.Terminal(fmt.Errorf("revision data: %w", err))
		}
		return newRevision(s, data, number, r.newUID()), nil
	})
	if err != nil {
		return revisions{}, fmt.Errorf("statefulset %s: %w", s, err)
	}
	switch change {
	case history.Created:
		r.log.Info("created revision", zap.String("statefulset", s.String()), zap.String("revision", out.update.Name), zap.Int64("number", out.update.Spec.Revision))
	case history.Renumbered:
		r.log.Info("renumbered revision", zap.String("statefulset", s.String()), zap.String("revision", out.update.Name), zap.Int64("number", out.update.Spec.Revision))
	}
	out.current, out.currentTemplate = out.update, s.Spec.Template
	if c := s.Status.CurrentRevision; c != "" && c != out.update.Name {
		if j := slices.IndexFunc(out.owned, func(rev domain.ControllerRevision) bool { return rev.Name == c }); j >= 0 {
			t, err := r.revs.Codec.Template(s, out.owned[j].Spec.Data)
			if err != nil {
				// A revision herd cannot apply (written by hand): the pods
				// below the partition are made from the template now, as
				// if it were gone.
				r.log.Warn("revision does not apply", zap.String("statefulset", s.String()), zap.String("revision", c), zap.Error(err))
			} else {
				out.current, out.currentTemplate = out.owned[j], t
			}
		}
	}
	return out, nil
}

// truncateHistory deletes the StatefulSet's oldest revisions beyond its
// revisionHistoryLimit, as Kubernetes' truncateHistory does: never the
// current or the update revision as the status st names them after this
// reconcile (a current revision every pod has left goes at once, not a
// reconcile later), nor one a pod is still at.
func (r *Reconciler) truncateHistory(ctx context.Context, s domain.StatefulSet, revs revisions, st domain.StatefulSetStatus, owned []domain.Pod) error {
	live := map[string]bool{st.CurrentRevision: true, st.UpdateRevision: true}
	for _, p := range owned {
		live[p.Labels[domain.LabelControllerRevisionHash]] = true
	}
	limit := 10
	if l := s.Spec.RevisionHistoryLimit; l != nil {
		limit = int(*l)
	}
	keep := func(rev domain.ControllerRevision) bool { return live[rev.Name] }
	if len(history.Excess(revs.owned, keep, limit)) == 0 {
		return nil
	}
	// A revision is trimmed when one beyond the limit is made (a new
	// template) or once the pods have left it (the rollout's end): what
	// moved the StatefulSet's pods, as its status names it.
	tctx, err := reconcilers.BecauseOfCount(ctx, owned, reconcilers.SpecChange(s.Stream(), s.Version,
		domain.StatefulSetCreated{}, domain.StatefulSetChanged{}))
	if err != nil {
		return err
	}
	deleted, err := history.Truncate(tctx, r.revs.Cmds, revs.owned, keep, limit)
	for _, name := range deleted {
		r.log.Info("deleted revision", zap.String("statefulset", s.String()), zap.String("revision", name))
	}
	if err != nil {
		return fmt.Errorf("statefulset %s: %w", s, err)
	}
	return nil
}
