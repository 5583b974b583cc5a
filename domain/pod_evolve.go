package domain

import (
	"slices"
	"time"
)

// EvolvePod folds one event into the pod and returns the result. It is the
// only way a Pod changes: the live view and `herd replay` both call it.
// Like EvolveNode it never mutates p, copies what it takes from e, counts
// every event in Version and leaves ResourceVersion to the projection.
func EvolvePod(p Pod, e Event) Pod {
	p.Version++
	switch e := e.(type) {
	case PodCreated:
		return Pod{
			Namespace:       e.Namespace,
			Name:            e.Name,
			UID:             e.UID,
			Labels:          cloneStrings(e.Labels),
			Annotations:     cloneStrings(e.Annotations),
			Finalizers:      cloneSlice(e.Finalizers),
			Owners:          cloneSlice(e.Owners),
			CreatedAt:       e.At,
			Spec:            e.Spec.clone(),
			Status:          PodStatus{Phase: PodPending},
			Version:         p.Version,
			ResourceVersion: p.ResourceVersion,
		}
	case PodObserved:
		return Pod{
			Namespace:       e.Namespace,
			Name:            e.Name,
			UID:             e.UID,
			Labels:          cloneStrings(e.Labels),
			Annotations:     cloneStrings(e.Annotations),
			Owners:          cloneSlice(e.Owners),
			CreatedAt:       e.CreatedAt,
			Source:          SourceKubelet,
			Spec:            e.Spec.clone(),
			Status:          mergeStatus(p.Status, e.Status, e.At),
			Version:         p.Version,
			ResourceVersion: p.ResourceVersion,
		}
	case PodScheduled:
		p.Spec = p.Spec.clone()
		p.Spec.NodeName = e.NodeName
		p.Status = p.Status.clone()
		p.Status.Conditions = setPodCondition(p.Status.Conditions, PodCondition{Type: PodConditionScheduled, Status: ConditionTrue}, e.At)
	case PodUnschedulable:
		p.Status = p.Status.clone()
		p.Status.Conditions = setPodCondition(p.Status.Conditions, PodCondition{
			Type: PodConditionScheduled, Status: ConditionFalse, Reason: ReasonUnschedulable, Message: e.Message,
		}, e.At)
	case PodStatusUpdated:
		p.Status = mergeStatus(p.Status, e.Status, e.At)
	case PodMetadataChanged:
		p.Labels = cloneStrings(e.Labels)
		p.Annotations = cloneStrings(e.Annotations)
		p.Finalizers = cloneSlice(e.Finalizers)
	case PodOwnersChanged:
		p.Owners = cloneSlice(e.Owners)
	case PodMarkedNotReady:
		p.Status = p.Status.clone()
		p.Status.Conditions = markedNotReady(p.Status.Conditions, e.At)
	case PodDisruptionTargeted:
		p.Status = p.Status.clone()
		p.Status.Conditions = setPodCondition(p.Status.Conditions, PodCondition{
			Type: PodConditionDisruptionTarget, Status: ConditionTrue, Reason: e.Reason, Message: e.Message,
		}, e.At)
	case PodDeletionRequested:
		d := PodDeletion{RequestedAt: e.At}
		if p.Deletion != nil {
			d = *p.Deletion
		}
		d.GracePeriodSeconds, d.Deadline = e.GracePeriodSeconds, e.Deadline
		p.Deletion = &d
	case PodShutdownRequested:
		p.Deletion = p.Deletion.with(func(d *PodDeletion) { d.ShutdownRequestedAt = e.At })
	case PodHalted:
		p.Deletion = p.Deletion.with(func(d *PodDeletion) { d.HaltedAt = e.At })
	case PodStopped:
		p.Deletion = p.Deletion.with(func(d *PodDeletion) { d.StoppedAt = e.At })
		p.Status = p.Status.clone()
		p.Status.Conditions = setPodCondition(p.Status.Conditions, PodCondition{Type: PodConditionReady, Status: ConditionFalse, Reason: "PodStopped"}, e.At)
	case PodDeprovisioned:
		p.Deletion = p.Deletion.with(func(d *PodDeletion) { d.DeprovisionedAt = e.At })
	case PodIPAssigned:
		nw := e.Network
		p.Network = &nw
		p.Status = p.Status.clone()
		p.Status.PodIP = nw.IP
		p.Status.Conditions = setPodCondition(p.Status.Conditions, PodCondition{
			Type: PodConditionIPAllocated, Status: ConditionTrue, Reason: ReasonIPAllocated,
			Message: nw.IP + " from pool " + nw.Pool,
		}, e.At)
	case PodIPUnavailable:
		p.Status = p.Status.clone()
		p.Status.Conditions = setPodCondition(p.Status.Conditions, PodCondition{
			Type: PodConditionIPAllocated, Status: ConditionFalse, Reason: ReasonIPPoolExhausted, Message: e.Message,
		}, e.At)
	case PodFinalized:
		// The tombstone keeps the pod's last state, which is what a watcher
		// is shown when it is told the pod was DELETED.
		p.Finalized = true
	}
	return p
}

// with returns a copy of d changed by fn; a nil d starts from an empty
// deletion, so that a stray event never panics a replay.
func (d *PodDeletion) with(fn func(*PodDeletion)) *PodDeletion {
	var c PodDeletion
	if d != nil {
		c = *d
	}
	fn(&c)
	return &c
}

// setPodCondition returns a copy of conds with c set: LastTransitionTime is
// at when the condition is new or its status changed, and kept otherwise.
func setPodCondition(conds []PodCondition, c PodCondition, at time.Time) []PodCondition {
	out := slices.Clone(conds)
	for i := range out {
		if out[i].Type != c.Type {
			continue
		}
		c.LastTransitionTime = out[i].LastTransitionTime
		if out[i].Status != c.Status {
			c.LastTransitionTime = at
		}
		out[i] = c
		return out
	}
	c.LastTransitionTime = at
	return append(out, c)
}

// mergeStatus applies a reported status to old: conditions named in the
// report replace those of the same type (dated by herd's clock), the rest
// stay; a zero start time, and an empty pod or host IP, keep the old one
// (herd's IPAM gives pods their addresses, and a runtime's report that
// does not repeat the address does not take it away).
func mergeStatus(old, reported PodStatus, at time.Time) PodStatus {
	out := reported.clone()
	conds := slices.Clone(old.Conditions)
	for _, c := range reported.Conditions {
		conds = setPodCondition(conds, c, at)
	}
	out.Conditions = conds
	if len(out.Conditions) == 0 {
		out.Conditions = nil
	}
	if out.StartTime.IsZero() {
		out.StartTime = old.StartTime
	}
	if out.PodIP == "" {
		out.PodIP = old.PodIP
	}
	if out.HostIP == "" {
		out.HostIP = old.HostIP
	}
	return out
}
