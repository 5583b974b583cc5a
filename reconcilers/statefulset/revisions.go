package statefulset

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
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
	all, _, err := r.revs.Reader.List(ctx, s.Namespace)
	if err != nil {
		return revisions{}, fmt.Errorf("list revisions of statefulset %s: %w", s, err)
	}
	var out revisions
	for _, rev := range all {
		if rev.Exists() && s.Owns(rev) {
			out.owned = append(out.owned, rev)
		}
	}
	slices.SortFunc(out.owned, func(a, b domain.ControllerRevision) int {
		return cmp.Or(cmp.Compare(a.Spec.Revision, b.Spec.Revision), cmp.Compare(a.Name, b.Name))
	})
	var next int64 = 1
	if n := len(out.owned); n > 0 {
		next = out.owned[n-1].Spec.Revision + 1
	}
	name := domain.StatefulSetRevision(s)
	i := slices.IndexFunc(out.owned, func(rev domain.ControllerRevision) bool { return rev.Name == name })
	spec := reconcilers.SpecChange(domain.StatefulSetStream(s.Namespace, s.Name), s.Version, domain.StatefulSetCreated{}, domain.StatefulSetChanged{})
	wctx, err := reconcilers.BecauseOf(ctx, spec)
	if err != nil {
		return revisions{}, err
	}
	switch {
	case i >= 0 && i == len(out.owned)-1:
		out.update = out.owned[i]
	case i >= 0:
		// An old template came back: its revision becomes the newest.
		rev, err := r.revs.Cmds.Execute(wctx, out.owned[i].Key(),
			domain.RenumberControllerRevision{Revision: next, ResourceVersion: out.owned[i].ResourceVersion})
		if err != nil {
			return revisions{}, fmt.Errorf("renumber revision %s of statefulset %s: %w", name, s, err)
		}
		r.log.Info("renumbered revision", zap.String("statefulset", s.String()), zap.String("revision", name), zap.Int64("number", next))
		out.owned = append(slices.Delete(out.owned, i, i+1), rev)
		out.update = rev
	default:
		data, err := r.revs.Codec.Data(s)
		if err != nil {
			return revisions{}, reconcilers.Terminal(fmt.Errorf("revision data of statefulset %s: %w", s, err))
		}
		c := domain.NewStatefulSetRevision(s, data, next, r.newUID())
		rev, err := r.revs.Cmds.Execute(wctx, domain.Key{Namespace: s.Namespace, Name: c.Meta.Name}, c)
		if err != nil {
			return revisions{}, fmt.Errorf("create revision %s of statefulset %s: %w", c.Meta.Name, s, err)
		}
		r.log.Info("created revision", zap.String("statefulset", s.String()), zap.String("revision", rev.Name), zap.Int64("number", next))
		out.owned = append(out.owned, rev)
		out.update = rev
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
	var history []domain.ControllerRevision
	for _, rev := range revs.owned {
		if !live[rev.Name] {
			history = append(history, rev)
		}
	}
	limit := 10
	if l := s.Spec.RevisionHistoryLimit; l != nil {
		limit = int(*l)
	}
	if len(history) <= limit {
		return nil
	}
	var errs []error
	for _, rev := range history[:len(history)-limit] {
		_, err := r.revs.Cmds.Execute(ctx, rev.Key(), domain.DeleteControllerRevision{ResourceVersion: rev.ResourceVersion})
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete revision %s of statefulset %s: %w", rev.Name, s, err))
			continue
		}
		r.log.Info("deleted revision", zap.String("statefulset", s.String()), zap.String("revision", rev.Name))
	}
	return errors.Join(errs...)
}
