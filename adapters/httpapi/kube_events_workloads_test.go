package httpapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// TestWorkloadEventsAsKubernetesWritesThem: the workload controllers'
// Events, with Kubernetes' reasons and words, about the controller, and
// only for what the controller itself did.
func TestWorkloadEventsAsKubernetesWritesThem(t *testing.T) {
	rsRef := domain.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "uid-rs", Controller: true}
	pod := domain.Pod{Namespace: "default", Name: "web-abc-xyz", UID: "uid-pod", Owners: []domain.OwnerReference{rsRef}, Version: 1}
	terminating := pod
	terminating.Deletion = &domain.PodDeletion{}
	stsPod := domain.Pod{Namespace: "default", Name: "db-0", UID: "uid-db-0", Version: 1,
		Owners: []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "uid-sts", Controller: true}}}
	stsTerminating := stsPod
	stsTerminating.Deletion = &domain.PodDeletion{}
	dRef := domain.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "uid-d", Controller: true}
	rs := func(replicas int32) domain.ReplicaSet {
		return domain.ReplicaSet{ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "web-abc", Owners: []domain.OwnerReference{dRef}}, Spec: domain.ReplicaSetSpec{Replicas: replicas}}
	}
	complete := domain.Job{Object: domain.Object[domain.JobSpec, domain.JobStatus]{ObjectMeta: domain.ObjectMeta{Name: "pi", UID: "uid-job"},
		Status: domain.JobStatus{Conditions: []domain.JobCondition{{Type: domain.JobComplete, Status: domain.ConditionTrue}}}}}
	cronJobsJob := domain.Job{Object: domain.Object[domain.JobSpec, domain.JobStatus]{ObjectMeta: domain.ObjectMeta{Name: "tick-29932085", UID: "uid-j",
		Owners: []domain.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "tick", UID: "uid-cj", Controller: true}}}}}
	type seen struct{ Kind, Name, UID, Reason, Message, Component string }
	of := func(evs []workloadEvent) []seen {
		var out []seen
		for _, e := range evs {
			out = append(out, seen{e.controller.kind, e.name, e.uid, e.reason, e.message, e.controller.component})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		got  []workloadEvent
		want []seen
	}{
		{"a pod its ReplicaSet created", podWorkloadEvents(domain.Pod{}, pod, domain.PodCreated{}, "reconciler/replicaset"),
			[]seen{{"ReplicaSet", "web-abc", "uid-rs", "SuccessfulCreate", "Created pod: web-abc-xyz", "replicaset-controller"}}},
		{"a pod its ReplicaSet deleted", podWorkloadEvents(pod, terminating, domain.PodDeletionRequested{}, "reconciler/replicaset"),
			[]seen{{"ReplicaSet", "web-abc", "uid-rs", "SuccessfulDelete", "Deleted pod: web-abc-xyz", "replicaset-controller"}}},
		{"a pod an operator deleted", podWorkloadEvents(pod, terminating, domain.PodDeletionRequested{}, "httpapi"), nil},
		{"a pod its StatefulSet created", podWorkloadEvents(domain.Pod{}, stsPod, domain.PodCreated{}, "reconciler/statefulset"),
			[]seen{{"StatefulSet", "db", "uid-sts", "SuccessfulCreate", "create Pod db-0 in StatefulSet db successful", "statefulset-controller"}}},
		{"a pod its StatefulSet deleted", podWorkloadEvents(stsPod, stsTerminating, domain.PodDeletionRequested{}, "reconciler/statefulset"),
			[]seen{{"StatefulSet", "db", "uid-sts", "SuccessfulDelete", "delete Pod db-0 in StatefulSet db successful", "statefulset-controller"}}},
		{"a StatefulSet's pod an operator deleted", podWorkloadEvents(stsPod, stsTerminating, domain.PodDeletionRequested{}, "httpapi"), nil},
		{"a second deletion", podWorkloadEvents(terminating, terminating, domain.PodDeletionRequested{}, "reconciler/replicaset"), nil},
		{"a ReplicaSet created with pods", replicaSetWorkloadEvents(domain.ReplicaSet{}, rs(3), domain.ReplicaSetCreated{}, "reconciler/deployment"),
			[]seen{{"Deployment", "web", "uid-d", "ScalingReplicaSet", "Scaled up replica set web-abc from 0 to 3", "deployment-controller"}}},
		{"a ReplicaSet created without", replicaSetWorkloadEvents(domain.ReplicaSet{}, rs(0), domain.ReplicaSetCreated{}, "reconciler/deployment"), nil},
		{"a ReplicaSet scaled down", replicaSetWorkloadEvents(rs(3), rs(1), domain.ReplicaSetChanged{}, "reconciler/deployment"),
			[]seen{{"Deployment", "web", "uid-d", "ScalingReplicaSet", "Scaled down replica set web-abc from 3 to 1", "deployment-controller"}}},
		{"a ReplicaSet an operator scaled", replicaSetWorkloadEvents(rs(3), rs(1), domain.ReplicaSetChanged{}, "httpapi"), nil},
		{"a Job completed", jobWorkloadEvents(domain.Job{Object: domain.Object[domain.JobSpec, domain.JobStatus]{ObjectMeta: domain.ObjectMeta{Name: "pi", UID: "uid-job"}}}, complete),
			[]seen{{"Job", "pi", "uid-job", "Completed", "Job completed", "job-controller"}}},
		{"a Job complete already", jobWorkloadEvents(complete, complete), nil},
		{"a Job its CronJob created", cronJobJobEvents(cronJobsJob, domain.JobCreated{}, "reconciler/cronjob"),
			[]seen{{"CronJob", "tick", "uid-cj", "SuccessfulCreate", "Created job tick-29932085", "cronjob-controller"}}},
		{"a Job its CronJob deleted", cronJobJobEvents(cronJobsJob, domain.JobDeleted{}, "reconciler/cronjob"),
			[]seen{{"CronJob", "tick", "uid-cj", "SuccessfulDelete", "Deleted job tick-29932085", "cronjob-controller"}}},
		{"a CronJob's Job an operator deleted", cronJobJobEvents(cronJobsJob, domain.JobDeleted{}, "httpapi"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, of(tc.got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
