package domain

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleJobSpec is a Job of three completions, two at a time, whose
// selector herd generates.
func sampleJobSpec() JobSpec {
	three := int32(3)
	return JobSpec{
		Parallelism: 2, Completions: &three, BackoffLimit: 6, CompletionMode: JobNonIndexed,
		Template: PodTemplate{Labels: map[string]string{"app": "pi"},
			Spec: PodSpec{RestartPolicy: RestartNever, Containers: []Container{{Name: "pi", Image: "perl"}}}},
	}
}

func sampleJobEvents() []Event {
	spec := generateJobSelector(sampleJobSpec(), "pi", "job-uid")
	spec.Template.Spec.RestartPolicy, spec.PodFailurePolicy = RestartNever, &JobPodFailurePolicy{Rules: []PodFailurePolicyRule{
		{Action: PodFailureFailJob, OnExitCodes: &PodFailurePolicyOnExitCodes{ContainerName: new("pi"), Operator: "In", Values: []int32{42}}},
		{Action: PodFailureIgnore, OnPodConditions: []PodFailurePolicyOnCondition{{Type: "DisruptionTarget", Status: ConditionTrue}}},
	}}
	return []Event{
		JobCreated{Namespace: "default", Name: "pi", UID: "job-uid", Labels: map[string]string{"team": "a"}, Spec: spec, At: at(1)},
		JobChanged{Labels: map[string]string{"team": "a"}, Spec: spec, Generation: 2, At: at(2)},
		JobMetadataChanged{Labels: map[string]string{"team": "b"}, Changed: []string{"metadata.labels.team"}, At: at(2)},
		JobStatusRecorded{Status: JobStatus{Active: 2, StartTime: at(3), Conditions: []JobCondition{
			{Type: JobComplete, Status: ConditionTrue, Reason: JobReasonCompletionsReached, LastProbeTime: at(3), LastTransitionTime: at(3)}}}, At: at(3)},
		JobPodsCounted{Succeeded: []string{"p1"}, Failed: []string{"p2"}, Forgotten: []string{"p0"}, Indexes: []int32{1}, Ignored: []string{"p3"},
			FailJob: "Container pi for pod default/pi-p2 failed with exit code 42 matching FailJob rule at index 0", At: at(4)},
		JobDeletionRequested{At: at(5)},
		JobOwnersChanged{Owners: []OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "u"}}, At: at(5)},
		JobDeleted{Orphan: true, At: at(5)},
	}
}

func createdJob(t *testing.T) Job {
	t.Helper()
	evs, err := DecideJob(Job{}, CreateJob{Meta: ObjectMeta{Namespace: "default", Name: "pi", UID: "job-uid"}, Spec: sampleJobSpec()}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	j := Job{}
	for _, e := range evs {
		j = EvolveJob(j, e)
	}
	j.ResourceVersion = 7
	return j
}

func TestCreateJobGeneratesItsSelector(t *testing.T) {
	j := createdJob(t)
	wantLabels := map[string]string{"app": "pi", "job-name": "pi", "batch.kubernetes.io/job-name": "pi",
		"controller-uid": "job-uid", "batch.kubernetes.io/controller-uid": "job-uid"}
	if diff := cmp.Diff(wantLabels, j.Spec.Template.Labels); diff != "" {
		t.Errorf("template labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"batch.kubernetes.io/controller-uid": "job-uid"}, j.Spec.Selector.MatchLabels); diff != "" {
		t.Errorf("selector (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLabels, j.Labels); diff != "" {
		t.Errorf("a Job without labels takes its template's (-want +got):\n%s", diff)
	}
	pod := PodFromTemplate(j.Namespace, "pi-x2b4c", "pod-uid", j.Spec.Template, j.OwnerReference())
	if !j.Owns(Pod{Owners: pod.Owners}) || pod.Spec.RestartPolicy != RestartNever || pod.Labels["job-name"] != "pi" {
		t.Errorf("the Job's new pod %+v is not its own, or not its template's", pod)
	}
}

func TestDecideJob(t *testing.T) {
	j := createdJob(t)
	withSpec := func(change func(*JobSpec)) JobSpec {
		s := deepCopy(j.Spec)
		change(&s)
		return s
	}
	newSpec := func(change func(*JobSpec)) JobSpec {
		s := sampleJobSpec()
		change(&s)
		return s
	}
	create := func(s JobSpec) CreateJob {
		return CreateJob{Meta: ObjectMeta{Namespace: "default", Name: "pi", UID: "u"}, Spec: s}
	}
	five := int32(5)
	tests := []struct {
		name      string
		j         Job
		cmd       JobCommand
		want      []Event
		wantErr   error
		wantField string
	}{
		{"create twice", j, create(sampleJobSpec()), nil, ErrAlreadyExists, ""},
		{"a restart policy of Always", Job{}, create(newSpec(func(s *JobSpec) { s.Template.Spec.RestartPolicy = "" })), nil, ErrInvalid, "spec.template.spec.restartPolicy"},
		{"an indexed job without completions", Job{}, create(newSpec(func(s *JobSpec) { s.CompletionMode, s.Completions = JobIndexed, nil })), nil, ErrInvalid, "spec.completions"},
		{"an indexed job running too many at once", Job{}, create(newSpec(func(s *JobSpec) { s.CompletionMode, s.Parallelism = JobIndexed, 100_001 })), nil, ErrInvalid, "spec.parallelism"},
		{"a completion mode herd does not know", Job{}, create(newSpec(func(s *JobSpec) { s.CompletionMode = "Sharded" })), nil, ErrInvalid, "spec.completionMode"},
		{"the completion mode is fixed", j, UpdateJob{Spec: withSpec(func(s *JobSpec) { s.CompletionMode = JobIndexed })}, nil, ErrInvalid, "spec.completionMode"},
		{"a negative backoff limit", Job{}, create(newSpec(func(s *JobSpec) { s.BackoffLimit = -1 })), nil, ErrInvalid, "spec.backoffLimit"},
		{"a template claiming another job's uid", Job{}, create(newSpec(func(s *JobSpec) {
			s.Template.Labels = map[string]string{"controller-uid": "other"}
		})), nil, ErrInvalid, "spec.template.metadata.labels"},
		{"a manual selector the template does not match", Job{}, create(newSpec(func(s *JobSpec) {
			s.ManualSelector, s.Selector = true, LabelSelector{MatchLabels: map[string]string{"app": "other"}}
		})), nil, ErrInvalid, "spec.template.metadata.labels"},
		{"a manual selector left empty", Job{}, create(newSpec(func(s *JobSpec) { s.ManualSelector = true })), nil, ErrInvalid, "spec.selector"},
		{"parallelism changes", j, UpdateJob{Spec: withSpec(func(s *JobSpec) { s.Parallelism = 4 })},
			[]Event{JobChanged{Labels: j.Labels, Spec: withSpec(func(s *JobSpec) { s.Parallelism = 4 }), Generation: 2, At: at(9)}}, nil, ""},
		{"completions are fixed", j, UpdateJob{Spec: withSpec(func(s *JobSpec) { s.Completions = &five })}, nil, ErrInvalid, "spec.completions"},
		{"the template is fixed", j, UpdateJob{Spec: withSpec(func(s *JobSpec) { s.Template.Spec.Containers[0].Image = "python" })}, nil, ErrInvalid, "spec.template"},
		{"an update that changes nothing", j, UpdateJob{Spec: j.Spec}, nil, nil, ""},
		{"an update without a completion mode or labels takes the defaults", j, UpdateJob{Spec: withSpec(func(s *JobSpec) { s.CompletionMode = "" })}, nil, nil, ""},
		{"a stale update", j, Precondition[JobCommand]{ResourceVersion: 3, Command: UpdateJob{Spec: j.Spec}}, nil, ErrConflict, ""},
		{"the same status again", j, RecordJobStatus{Status: j.Status}, nil, nil, ""},
		{"counting pods", j, CountJobPods{Succeeded: []string{"a", "a"}, Failed: []string{"b"}, Forget: []string{"zz"}},
			[]Event{JobPodsCounted{Succeeded: []string{"a"}, Failed: []string{"b"}, At: at(9)}}, nil, ""},
		{"counting nothing", j, CountJobPods{}, nil, nil, ""},
		{"a job never created", Job{}, RecordJobStatus{}, nil, ErrNotFound, ""},
		{"delete", j, DeleteJob{}, []Event{JobDeleted{At: at(9)}}, nil, ""},
		{"delete in the foreground", j, DeleteJob{Propagation: PropagateForeground}, []Event{JobDeletionRequested{At: at(9)}}, nil, ""},
		{"delete orphaning", j, DeleteJob{Propagation: PropagateOrphan}, []Event{JobDeleted{Orphan: true, At: at(9)}}, nil, ""},
		{"finish no deletion", j, FinishJobDeletion{}, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecideJob(tt.j, tt.cmd, at(9))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if tt.wantField != "" && !strings.Contains(err.Error(), tt.wantField) {
				t.Errorf("error %q does not name %s", err, tt.wantField)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJobCountsEachPodOnce: a finished pod counted adds to Succeeded or
// Failed once, however often it is counted, until it is forgotten.
func TestJobCountsEachPodOnce(t *testing.T) {
	j := createdJob(t)
	count := func(cmd CountJobPods, now int) {
		t.Helper()
		evs, err := DecideJob(j, cmd, at(now))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			j = EvolveJob(j, e)
		}
	}
	count(CountJobPods{Succeeded: []string{"a"}, Failed: []string{"b"}}, 10)
	count(CountJobPods{Succeeded: []string{"a"}, Failed: []string{"b", "c"}}, 11)
	if j.Status.Succeeded != 1 || j.Status.Failed != 2 {
		t.Errorf("succeeded %d, failed %d; want 1 and 2", j.Status.Succeeded, j.Status.Failed)
	}
	if j.Tracking.FailuresSinceSuccess != 2 || !j.Tracking.LastFailureAt.Equal(at(11)) {
		t.Errorf("tracking %+v, want 2 failures since the success, the last at 11 s", j.Tracking)
	}
	count(CountJobPods{Forget: []string{"a", "b", "c"}}, 12)
	if len(j.Tracking.Counted) != 0 || j.Status.Succeeded != 1 || j.Status.Failed != 2 {
		t.Errorf("after forgetting every pod: %+v, %+v", j.Status, j.Tracking)
	}
}

func TestJobConditionKeepsItsTransitionTime(t *testing.T) {
	var s JobStatus
	s = s.WithCondition(JobCondition{Type: JobSuspended, Status: ConditionTrue, Reason: JobReasonSuspended}, at(1))
	s = s.WithCondition(JobCondition{Type: JobSuspended, Status: ConditionTrue, Reason: JobReasonSuspended}, at(2))
	if c, _ := s.Condition(JobSuspended); !c.LastTransitionTime.Equal(at(1)) {
		t.Errorf("an unchanged condition moved to %s", c.LastTransitionTime)
	}
	s = s.WithCondition(JobCondition{Type: JobSuspended, Status: ConditionFalse, Reason: JobReasonResumed}, at(3))
	s = s.WithCondition(JobCondition{Type: JobFailed, Status: ConditionTrue, Reason: JobReasonDeadlineExceeded}, at(4))
	if c, _ := s.Condition(JobSuspended); !c.LastTransitionTime.Equal(at(3)) || len(s.Conditions) != 2 {
		t.Errorf("conditions %+v", s.Conditions)
	}
	if !s.Finished() || !s.FinishedAt().Equal(at(4)) {
		t.Errorf("a Failed job finished %v at %s", s.Finished(), s.FinishedAt())
	}
}

func TestEvolveJobDeleted(t *testing.T) {
	j := Job{}
	for _, e := range sampleJobEvents() {
		j = EvolveJob(j, e)
	}
	if j.Exists() || !j.Deleted || !j.Orphan || j.UID == "" || j.Version != int64(len(sampleJobEvents())) {
		t.Errorf("after its deletion the job is %+v", j)
	}
}

// TestActiveJob: a node's active jobs are its Running pods and the pods
// of batch Jobs Pending there, not those of other controllers still
// waiting, nor a Job's pod on its way out.
func TestActiveJob(t *testing.T) {
	jobOwner := []OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: "u", Controller: true}}
	rsOwner := []OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "r", Controller: true}}
	pod := func(phase PodPhase, owners []OwnerReference, node string, deleting bool) Pod {
		p := Pod{Version: 1, Owners: owners, Spec: PodSpec{NodeName: node}, Status: PodStatus{Phase: phase}}
		if deleting {
			p.Deletion = &PodDeletion{}
		}
		return p
	}
	tests := []struct {
		name string
		pod  Pod
		want bool
	}{
		{"a running pod", pod(PodRunning, rsOwner, "n1", false), true},
		{"a running pod on its way out", pod(PodRunning, nil, "n1", true), true},
		{"a Job's pod waiting to start", pod(PodPending, jobOwner, "n1", false), true},
		{"a Job's pod not yet bound", pod(PodPending, jobOwner, "", false), false},
		{"a Job's pod deleted before it started", pod(PodPending, jobOwner, "n1", true), false},
		{"a ReplicaSet's pod waiting to start", pod(PodPending, rsOwner, "n1", false), false},
		{"a Job's pod that succeeded", pod(PodSucceeded, jobOwner, "n1", false), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.pod.ActiveJob(); got != tt.want {
				t.Errorf("ActiveJob() = %v, want %v", got, tt.want)
			}
		})
	}
}
