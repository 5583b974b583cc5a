package statefulset

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
)

// claim returns the pods s controls, as Kubernetes' StatefulSet
// controller claims them (ClaimPods, with isMemberOf): a pod is s's when
// its selector matches it and its name is one of s's ordinals. It adopts
// the pods without a controller that are s's by that rule (a StatefulSet
// deleted with its pods orphaned and created again takes them back, as
// operators do to change what cannot be updated, rather than wait for
// names that are taken), and releases its own that are no longer. A pod
// being deleted is neither adopted nor released; one adopted by another
// since it was read is left to it.
func (r *Reconciler) claim(ctx context.Context, s domain.StatefulSet, pods []domain.Pod) ([]domain.Pod, error) {
	var owned, adopted, released []domain.Pod
	for _, p := range pods {
		_, member := Ordinal(s.Name, p.Name)
		mine := member && s.Spec.Selector.Matches(p.Labels)
		_, controlled := p.Controller()
		var cmd domain.PodCommand
		switch {
		case s.Owns(p) && (mine || p.Terminating()):
			owned = append(owned, p)
			continue
		case s.Owns(p):
			cmd = domain.ReleasePod{UID: s.UID}
		case !controlled && mine && !p.Terminating():
			cmd = domain.AdoptPod{Owner: s.OwnerReference()}
		default:
			continue
		}
		got, err := r.podCmds.Execute(ctx, domain.Key{Namespace: p.Namespace, Name: p.Name}, cmd)
		switch {
		case errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrNotFound):
			continue // adopted or gone since it was read: the next look sees it
		case err != nil:
			return nil, fmt.Errorf("claim pod %s for statefulset %s: %w", p.Name, s, err)
		}
		if _, adopt := cmd.(domain.AdoptPod); adopt {
			owned, adopted = append(owned, got), append(adopted, got)
		} else {
			released = append(released, got)
		}
	}
	r.owners.ObservePods(adopted)
	r.owners.ObservePods(released)
	if len(adopted) > 0 {
		r.log.Info("adopted pods", zap.String("statefulset", s.String()), zap.Int("pods", len(adopted)))
	}
	if len(released) > 0 {
		r.log.Info("released pods that are no longer the statefulset's", zap.String("statefulset", s.String()), zap.Int("pods", len(released)))
	}
	return owned, nil
}
