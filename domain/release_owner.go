package domain

import "time"

// The garbage collector takes an owner's reference off a dependent when
// that owner is deleted with its dependents orphaned, or is deleted in
// the foreground while another owner keeps the dependent. ReleasePod and
// ReleaseReplicaSet do it for pods and ReplicaSets; these do it for the
// other kinds that keep their owners in their own events. Each is a no-op
// on an object that no longer names the owner.

// ReleaseJob takes off the Job's reference to the owner of UID.
type ReleaseJob struct {
	UID string
}

func (c ReleaseJob) decideJob(j Job, now time.Time) ([]Event, error) {
	if err := requireObject(j.Object); err != nil {
		return nil, err
	}
	owners, ok := withoutOwner(j.Owners, c.UID)
	if !ok {
		return nil, nil
	}
	return []Event{JobOwnersChanged{Owners: owners, At: now}}, nil
}

// ReleaseDaemonSet takes off the DaemonSet's reference to the owner of
// UID.
type ReleaseDaemonSet struct {
	UID string
}

func (c ReleaseDaemonSet) decideDaemonSet(ds DaemonSet, now time.Time) ([]Event, error) {
	if err := requireObject(ds.Object); err != nil {
		return nil, err
	}
	owners, ok := withoutOwner(ds.Owners, c.UID)
	if !ok {
		return nil, nil
	}
	return []Event{DaemonSetOwnersChanged{Owners: owners, At: now}}, nil
}

// ReleasePodDisruptionBudget takes off the budget's reference to the
// owner of UID.
type ReleasePodDisruptionBudget struct {
	UID string
}

func (c ReleasePodDisruptionBudget) decidePodDisruptionBudget(b PodDisruptionBudget, now time.Time) ([]Event, error) {
	if err := requireObject(b); err != nil {
		return nil, err
	}
	owners, ok := withoutOwner(b.Owners, c.UID)
	if !ok {
		return nil, nil
	}
	return []Event{PodDisruptionBudgetOwnersChanged{Owners: owners, At: now}}, nil
}
