package domain

import (
	"errors"
	"strings"
	"testing"
)

// TestStatusWritesAreCheckedAsKubeApiserverChecksThem: a status written
// for a workload, by herd's reconcilers or by a client through the
// status subresource, is refused with ErrInvalid naming the field when
// kube-apiserver's status strategy would refuse it, and recorded when it
// would not.
func TestStatusWritesAreCheckedAsKubeApiserverChecksThem(t *testing.T) {
	rs, d, ds, sts := createdRS(t), createdDeployment(t), createdDS(t), createdStatefulSet(t, sampleStatefulSetSpec())
	pdb := budgetWith(t, samplePDBSpec(), PodDisruptionBudgetStatus{ObservedGeneration: 1})
	job, indexed := createdJob(t), createdIndexedJob(t, 5)
	tests := []struct {
		name      string
		decide    func() ([]Event, error)
		wantField string // "" when the status is recorded
		wantWords string
	}{
		{"a ReplicaSet's counts in order", func() ([]Event, error) {
			return DecideReplicaSet(rs, RecordReplicaSetStatus{Status: ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 1}}, at(2))
		}, "", ""},
		{"a ReplicaSet's negative replicas", func() ([]Event, error) {
			return DecideReplicaSet(rs, RecordReplicaSetStatus{Status: ReplicaSetStatus{Replicas: -1}}, at(2))
		}, "status.replicas", "must be greater than or equal to 0"},
		{"more of a ReplicaSet's pods ready than it has", func() ([]Event, error) {
			return DecideReplicaSet(rs, RecordReplicaSetStatus{Status: ReplicaSetStatus{Replicas: 1, ReadyReplicas: 2, AvailableReplicas: 1}}, at(2))
		}, "status.readyReplicas", "cannot be greater than status.replicas"},
		{"more of a ReplicaSet's pods labelled than it has", func() ([]Event, error) {
			return DecideReplicaSet(rs, RecordReplicaSetStatus{Status: ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 2}}, at(2))
		}, "status.fullyLabeledReplicas", "cannot be greater than status.replicas"},
		{"more of a ReplicaSet's pods available than ready", func() ([]Event, error) {
			return DecideReplicaSet(rs, RecordReplicaSetStatus{Status: ReplicaSetStatus{Replicas: 3, ReadyReplicas: 1, AvailableReplicas: 2}}, at(2))
		}, "status.availableReplicas", "cannot be greater than readyReplicas"},
		{"a Deployment's counts in order", func() ([]Event, error) {
			return DecideDeployment(d, RecordDeploymentStatus{Status: DeploymentStatus{Replicas: 3, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1}}, at(2))
		}, "", ""},
		{"more of a Deployment's pods updated than it has", func() ([]Event, error) {
			return DecideDeployment(d, RecordDeploymentStatus{Status: DeploymentStatus{Replicas: 1, UpdatedReplicas: 2}}, at(2))
		}, "status.updatedReplicas", "cannot be greater than status.replicas"},
		{"a Deployment's negative collision count", func() ([]Event, error) {
			return DecideDeployment(d, RecordDeploymentStatus{Status: DeploymentStatus{CollisionCount: -1}}, at(2))
		}, "status.collisionCount", "must be greater than or equal to 0"},
		{"a Deployment's negative unavailable replicas", func() ([]Event, error) {
			return DecideDeployment(d, RecordDeploymentStatus{Status: DeploymentStatus{UnavailableReplicas: -3}}, at(2))
		}, "status.unavailableReplicas", "must be greater than or equal to 0"},
		{"a StatefulSet's counts in order", func() ([]Event, error) {
			return DecideObject[StatefulSet](sts, RecordStatefulSetStatus{Status: StatefulSetStatus{Replicas: 3, CurrentReplicas: 1, UpdatedReplicas: 2, ReadyReplicas: 3, AvailableReplicas: 3}}, at(2))
		}, "", ""},
		{"more of a StatefulSet's pods current than it has", func() ([]Event, error) {
			return DecideObject[StatefulSet](sts, RecordStatefulSetStatus{Status: StatefulSetStatus{Replicas: 1, CurrentReplicas: 2}}, at(2))
		}, "status.currentReplicas", "cannot be greater than status.replicas"},
		{"a StatefulSet's negative observed generation", func() ([]Event, error) {
			return DecideObject[StatefulSet](sts, RecordStatefulSetStatus{Status: StatefulSetStatus{ObservedGeneration: -1}}, at(2))
		}, "status.observedGeneration", "must be greater than or equal to 0"},
		{"a DaemonSet's counts", func() ([]Event, error) {
			return DecideDaemonSet(ds, RecordDaemonSetStatus{Status: DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, NumberAvailable: 2, NumberUnavailable: 1}}, at(2))
		}, "", ""},
		{"a DaemonSet's negative misscheduled count", func() ([]Event, error) {
			return DecideDaemonSet(ds, RecordDaemonSetStatus{Status: DaemonSetStatus{NumberMisscheduled: -1}}, at(2))
		}, "status.numberMisscheduled", "must be greater than or equal to 0"},
		{"a budget's counts", func() ([]Event, error) {
			return DecidePodDisruptionBudget(pdb, RecordPodDisruptionBudgetStatus{Status: PodDisruptionBudgetStatus{DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3}}, at(2))
		}, "", ""},
		{"a budget's negative disruptions", func() ([]Event, error) {
			return DecidePodDisruptionBudget(pdb, RecordPodDisruptionBudgetStatus{Status: PodDisruptionBudgetStatus{DisruptionsAllowed: -1}}, at(2))
		}, "status.disruptionsAllowed", "must be greater than or equal to 0"},
		{"a Job's counts", func() ([]Event, error) {
			return DecideJob(job, RecordJobStatus{Status: JobStatus{Active: 2, Ready: 1, Succeeded: 1}}, at(2))
		}, "", ""},
		{"a Job's negative failures", func() ([]Event, error) {
			return DecideJob(job, RecordJobStatus{Status: JobStatus{Failed: -1}}, at(2))
		}, "status.failed", "must be greater than or equal to 0"},
		{"more of a Job's pods ready than active", func() ([]Event, error) {
			return DecideJob(job, RecordJobStatus{Status: JobStatus{Active: 1, Ready: 2}}, at(2))
		}, "status.ready", "cannot set more ready pods than active"},
		{"completed indexes for a Job without indexes", func() ([]Event, error) {
			return DecideJob(job, RecordJobStatus{Status: JobStatus{CompletedIndexes: "0"}}, at(2))
		}, "status.completedIndexes", "non-indexed completion mode"},
		{"an Indexed Job's completed indexes", func() ([]Event, error) {
			return DecideJob(indexed, RecordJobStatus{Status: JobStatus{CompletedIndexes: "0,2-4", Succeeded: 4}}, at(2))
		}, "", ""},
		{"an Indexed Job's completed indexes that are not indexes", func() ([]Event, error) {
			return DecideJob(indexed, RecordJobStatus{Status: JobStatus{CompletedIndexes: "x"}}, at(2))
		}, "status.completedIndexes", `error parsing completedIndexes: "x" is not an index`},
		{"an Indexed Job's completed indexes out of order", func() ([]Event, error) {
			return DecideJob(indexed, RecordJobStatus{Status: JobStatus{CompletedIndexes: "3,1"}}, at(2))
		}, "status.completedIndexes", "increasing order"},
		{"an Indexed Job's completed indexes overlapping", func() ([]Event, error) {
			return DecideJob(indexed, RecordJobStatus{Status: JobStatus{CompletedIndexes: "1-3,3"}}, at(2))
		}, "status.completedIndexes", "increasing order"},
		{"an Indexed Job's completed index beyond its completions", func() ([]Event, error) {
			return DecideJob(indexed, RecordJobStatus{Status: JobStatus{CompletedIndexes: "2-5"}}, at(2))
		}, "status.completedIndexes", "index 5 is not below the Job's 5 completions"},
		{"an Indexed Job's negative index", func() ([]Event, error) {
			return DecideJob(indexed, RecordJobStatus{Status: JobStatus{CompletedIndexes: "-1"}}, at(2))
		}, "status.completedIndexes", "is not an index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := tt.decide()
			if tt.wantField == "" {
				if err != nil || len(evs) != 1 {
					t.Fatalf("a valid status: %v, %v; want it recorded", evs, err)
				}
				return
			}
			var inv *InvalidError
			if !errors.As(err, &inv) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v, want an *InvalidError", err)
			}
			if evs != nil {
				t.Errorf("a refused status recorded %v", evs)
			}
			if len(inv.Fields) == 0 || inv.Fields[0].Field != tt.wantField {
				t.Fatalf("refusal %v names %+v, want %s first", err, inv.Fields, tt.wantField)
			}
			if !strings.Contains(err.Error(), tt.wantWords) {
				t.Errorf("refusal %q does not say %q", err, tt.wantWords)
			}
		})
	}
}

// TestTheSameStatusAgainIsNotChecked: a status that changes nothing
// records nothing, so it is not refused even when what is stored would
// be refused now (a log written before herd checked statuses).
func TestTheSameStatusAgainIsNotChecked(t *testing.T) {
	bad := JobStatus{Active: 1, Ready: 3}
	j := EvolveJob(createdJob(t), JobStatusRecorded{Status: bad, At: at(2)})
	if evs, err := DecideJob(j, RecordJobStatus{Status: bad}, at(3)); err != nil || evs != nil {
		t.Errorf("the same status again: %v, %v; want nothing and no error", evs, err)
	}
	d := EvolveObject(createdDeployment(t), DeploymentStatusRecorded{Status: DeploymentStatus{Replicas: 1, ReadyReplicas: 2}, At: at(2)})
	if evs, err := DecideDeployment(d, RecordDeploymentStatus{Status: d.Status}, at(3)); err != nil || evs != nil {
		t.Errorf("a Deployment's same status again: %v, %v; want nothing and no error", evs, err)
	}
	// A Job's completed indexes are checked only when they change: the
	// rest of its status may still move on.
	indexed := createdIndexedJob(t, 3)
	indexed = EvolveJob(indexed, JobStatusRecorded{Status: JobStatus{CompletedIndexes: "7"}, At: at(2)})
	if _, err := DecideJob(indexed, RecordJobStatus{Status: JobStatus{CompletedIndexes: "7", Active: 1}}, at(3)); err != nil {
		t.Errorf("a Job's stored completed indexes unchanged: %v", err)
	}
}

// createdIndexedJob is an Indexed Job of completions indexes.
func createdIndexedJob(t *testing.T, completions int32) Job {
	t.Helper()
	spec := sampleJobSpec()
	spec.CompletionMode, spec.Completions = JobIndexed, &completions
	evs, err := DecideJob(Job{}, CreateJob{Meta: ObjectMeta{Namespace: "default", Name: "ix", UID: "ix-uid"}, Spec: spec}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	j := Job{}
	for _, e := range evs {
		j = EvolveJob(j, e)
	}
	return j
}
