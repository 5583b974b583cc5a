package domain

import "testing"

// TestObjectCommandsOnAStateAroundTheObject: a kind whose state holds
// more than its object (a Job's counted pods) gets its whole state
// through DecideObject and through the wrappers around its own commands;
// the bare object is no state for such a command.
func TestObjectCommandsOnAStateAroundTheObject(t *testing.T) {
	j := createdJob(t) // at resourceVersion 7
	count := CountJobPods{Succeeded: []string{"a"}}
	tests := []struct {
		name    string
		cmd     JobCommand
		wantErr error
		events  int
	}{
		{"its own command", count, nil, 1},
		{"in a precondition that holds", Precondition[JobCommand]{ResourceVersion: 7, Command: count}, nil, 1},
		{"in a stale precondition", Precondition[JobCommand]{ResourceVersion: 6, Command: count}, ErrConflict, 0},
		{"in a precondition, no command", Precondition[JobCommand]{ResourceVersion: 7}, ErrInvalid, 0},
		{"made from the Job", From[Job, JobCommand](func(cur Job) (JobCommand, error) {
			if len(cur.Tracking.Counted) != 0 {
				t.Errorf("the Job as it stands counted %v", cur.Tracking.Counted)
			}
			return count, nil
		}), nil, 1},
		{"made from another kind", From[CronJob, JobCommand](func(CronJob) (JobCommand, error) { return count, nil }), ErrInvalid, 0},
		{"an object model's command", Precondition[JobCommand]{ResourceVersion: 7, Command: RecordJobStatus{Status: JobStatus{Active: 1}}}, nil, 1},
		{"none", nil, ErrInvalid, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideJob(j, tt.cmd, at(2))
			checkDecided(t, evs, err, tt.wantErr, tt.events)
		})
	}
	t.Run("the bare object", func(t *testing.T) {
		evs, err := DecideObject(j.Object, count, at(2))
		checkDecided(t, evs, err, ErrInvalid, 0)
		evs, err = DecideObject(j.Object, RecordJobStatus{Status: JobStatus{Active: 1}}, at(2))
		checkDecided(t, evs, err, nil, 1)
	})
}

// TestReleaseNeedsAKindThatReleasesOwners: a kind whose owners change
// only through an update (a ConfigMap) refuses Release as bad input rather
// than record an event it has no name for.
func TestReleaseNeedsAKindThatReleasesOwners(t *testing.T) {
	evs, err := DecideObject[ConfigMap](ConfigMap{}, Release[ConfigMapSpec, NoStatus]{UID: "u"}, at(1))
	checkDecided(t, evs, err, ErrInvalid, 0)
	j := createdJob(t)
	j.Owners = []OwnerReference{{Kind: "CronJob", Name: "every-minute", UID: "u", Controller: true}}
	evs, err = DecideJob(j, ReleaseJob{UID: "u"}, at(2))
	checkDecided(t, evs, err, nil, 1)
	if got := evs[0].EventType(); got != "JobOwnersChanged" {
		t.Errorf("recorded %s, want JobOwnersChanged", got)
	}
}

// TestDeleteFollowsTheKind: Delete propagates to the dependents of a
// kind that has a deletion in the foreground, and deletes one of any
// other kind at once, whatever the propagation.
func TestDeleteFollowsTheKind(t *testing.T) {
	j := createdJob(t)
	evs, err := DecideJob(j, DeleteJob{Propagation: PropagateForeground}, at(2))
	checkDecided(t, evs, err, nil, 1)
	if got := evs[0].EventType(); got != "JobDeletionRequested" {
		t.Errorf("a Job deleted in the foreground recorded %s, want JobDeletionRequested", got)
	}
	evs, err = DecideConfigMap(ConfigMap{}, CreateConfigMap{Meta: ObjectMeta{Namespace: "default", Name: "c"}}, at(1))
	checkDecided(t, evs, err, nil, 1)
	cm := EvolveConfigMap(ConfigMap{}, evs[0])
	evs, err = DecideConfigMap(cm, DeleteConfigMap{Propagation: PropagateForeground}, at(2))
	checkDecided(t, evs, err, nil, 1)
	if got := evs[0].EventType(); got != "ConfigMapDeleted" {
		t.Errorf("a ConfigMap deleted in the foreground recorded %s, want ConfigMapDeleted", got)
	}
}
