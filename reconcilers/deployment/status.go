package deployment

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"herd/domain"
)

// The conditions of a Deployment and their reasons, in Kubernetes' words
// (pkg/controller/deployment/util), which kubectl rollout status reads.
const (
	condAvailable   = "Available"
	condProgressing = "Progressing"

	reasonCreated          = "NewReplicaSetCreated"
	reasonUpdated          = "ReplicaSetUpdated"
	reasonAvailable        = "NewReplicaSetAvailable"
	reasonTimedOut         = "ProgressDeadlineExceeded"
	reasonPaused           = "DeploymentPaused"
	reasonResumed          = "DeploymentResumed"
	reasonMinimum          = "MinimumReplicasAvailable"
	reasonMinimumMissing   = "MinimumReplicasUnavailable"
	reasonCollision        = "ReplicaSetCreateError"
	messageMinimum         = "Deployment has minimum availability."
	messageMinimumMissing  = "Deployment does not have minimum availability."
	conditionTrue          = "True"
	conditionFalse         = "False"
	conditionUnknown       = "Unknown"
	progressDeadlineMargin = time.Second
)

// status is the Deployment's status after the step, the revision it
// runs (its new ReplicaSet's), and when to look again for its progress
// deadline (0 for no need).
func (ro *rollout) status(now time.Time) (domain.DeploymentStatus, string, time.Duration) {
	d := ro.d
	prev := d.Status
	st := domain.DeploymentStatus{ObservedGeneration: d.Generation, CollisionCount: prev.CollisionCount,
		Conditions: slices.Clone(prev.Conditions)}
	if ro.collided {
		st.CollisionCount++
	}
	all := ro.all()
	for _, rs := range all {
		st.Replicas += rs.Status.Replicas
		st.ReadyReplicas += rs.Status.ReadyReplicas
		st.AvailableReplicas += rs.Status.AvailableReplicas
	}
	var revision string
	newName := ""
	if ro.newRS != nil {
		st.UpdatedReplicas = ro.newRS.Status.Replicas
		revision = strconv.FormatInt(revisionOf(*ro.newRS), 10)
		newName = ro.newRS.Name
	}
	st.UnavailableReplicas = max(specReplicas(all)-st.AvailableReplicas, 0)

	_, unavailable := fenceposts(d)
	if st.AvailableReplicas >= d.Spec.Replicas-unavailable {
		st.Conditions = setCondition(st.Conditions, cond(condAvailable, conditionTrue, reasonMinimum, messageMinimum, now))
	} else {
		st.Conditions = setCondition(st.Conditions, cond(condAvailable, conditionFalse, reasonMinimumMissing, messageMinimumMissing, now))
	}

	current, _ := prev.Condition(condProgressing)
	var requeue time.Duration
	switch {
	case d.Spec.Paused:
		if current.Reason != reasonPaused {
			st.Conditions = setCondition(st.Conditions, cond(condProgressing, conditionUnknown, reasonPaused, "Deployment is paused", now))
		}
	case current.Reason == reasonPaused:
		st.Conditions = setCondition(st.Conditions, cond(condProgressing, conditionUnknown, reasonResumed, "Deployment is resumed", now))
	case ro.collided:
		st.Conditions = setCondition(st.Conditions, cond(condProgressing, conditionFalse, reasonCollision,
			fmt.Sprintf("Found a replica set named after the template's hash that is not this deployment's; collision count now %d", st.CollisionCount), now))
	case complete(d, st):
		if current.Reason != reasonAvailable {
			st.Conditions = setCondition(st.Conditions, cond(condProgressing, conditionTrue, reasonAvailable,
				fmt.Sprintf("ReplicaSet %q has successfully progressed.", newName), now))
		}
	case ro.progress == reasonCreated:
		st.Conditions = refresh(st.Conditions, cond(condProgressing, conditionTrue, reasonCreated, fmt.Sprintf("Created new replica set %q", newName), now))
	case ro.progress != "" || progressed(prev, st):
		st.Conditions = refresh(st.Conditions, cond(condProgressing, conditionTrue, reasonUpdated, fmt.Sprintf("ReplicaSet %q is progressing.", newName), now))
	case current.Reason != reasonTimedOut && current.Type != "" && !current.LastUpdate.Add(deadline(d)).After(now):
		st.Conditions = setCondition(st.Conditions, cond(condProgressing, conditionFalse, reasonTimedOut,
			fmt.Sprintf("ReplicaSet %q has timed out progressing.", newName), now))
	}
	if c, ok := st.Condition(condProgressing); ok && c.Status == conditionTrue && c.Reason != reasonAvailable {
		// Come back when the deadline passes, if nothing else happens.
		requeue = c.LastUpdate.Add(deadline(d)).Sub(now) + progressDeadlineMargin
	}
	return st, revision, max(requeue, 0)
}

func deadline(d domain.Deployment) time.Duration {
	return time.Duration(d.Spec.ProgressDeadlineSeconds) * time.Second
}

// complete reports whether every pod the Deployment asks for is of its
// template and available, and no other is left (Kubernetes'
// DeploymentComplete).
func complete(d domain.Deployment, st domain.DeploymentStatus) bool {
	return st.UpdatedReplicas == d.Spec.Replicas && st.Replicas == d.Spec.Replicas &&
		st.AvailableReplicas == d.Spec.Replicas && st.ObservedGeneration >= d.Generation
}

// progressed reports whether the pods moved on since the status before
// (Kubernetes' DeploymentProgressing): more updated, ready or available,
// or fewer old ones.
func progressed(prev, st domain.DeploymentStatus) bool {
	oldBefore, oldNow := prev.Replicas-prev.UpdatedReplicas, st.Replicas-st.UpdatedReplicas
	return st.UpdatedReplicas > prev.UpdatedReplicas || oldNow < oldBefore ||
		st.ReadyReplicas > prev.ReadyReplicas || st.AvailableReplicas > prev.AvailableReplicas
}

func cond(t, status, reason, message string, now time.Time) domain.WorkloadCondition {
	return domain.WorkloadCondition{Type: t, Status: status, Reason: reason, Message: message, LastUpdate: now, LastTransition: now}
}

// setCondition puts c among conds, in place of the one of its type; one
// with the same status and reason is kept as it is, and a change of
// reason alone keeps the time of the last transition.
func setCondition(conds []domain.WorkloadCondition, c domain.WorkloadCondition) []domain.WorkloadCondition {
	i := slices.IndexFunc(conds, func(o domain.WorkloadCondition) bool { return o.Type == c.Type })
	if i < 0 {
		return append(conds, c)
	}
	if conds[i].Status == c.Status && conds[i].Reason == c.Reason {
		return conds
	}
	if conds[i].Status == c.Status {
		c.LastTransition = conds[i].LastTransition
	}
	conds[i] = c
	return conds
}

// refresh puts c among conds as progress made now: its last update is
// now even when status and reason are unchanged, which is what moves the
// progress deadline on.
func refresh(conds []domain.WorkloadCondition, c domain.WorkloadCondition) []domain.WorkloadCondition {
	i := slices.IndexFunc(conds, func(o domain.WorkloadCondition) bool { return o.Type == c.Type })
	if i < 0 {
		return append(conds, c)
	}
	if conds[i].Status == c.Status {
		c.LastTransition = conds[i].LastTransition
	}
	conds[i] = c
	return conds
}
