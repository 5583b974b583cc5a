package job

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/reconcilers"
)

var t0 = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

// fixture is the reconciler on fakes, a fake clock, and pods named
// pi-1, pi-2, … in the order it creates them.
type fixture struct {
	r     *Reconciler
	jobs  *fakeJobs
	pods  *fakePods
	clock *clocktesting.FakeClock
}

func newFixture(t *testing.T, change func(*domain.JobSpec)) *fixture {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	one := int32(1)
	spec := domain.JobSpec{Parallelism: 1, Completions: &one, BackoffLimit: 6, CompletionMode: domain.JobNonIndexed,
		Template: domain.PodTemplate{Spec: domain.PodSpec{RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "pi", Image: "perl"}}}}}
	if change != nil {
		change(&spec)
	}
	f := &fixture{jobs: newFakeJobs(clk.Now), pods: newFakePods(clk.Now), clock: clk}
	if _, err := f.jobs.Execute(t.Context(), domain.Key{Namespace: "default", Name: "pi"},
		domain.CreateJob{Meta: domain.ObjectMeta{Namespace: "default", Name: "pi", UID: "uid-pi"}, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	r, err := New(DefaultConfig(), f.jobs, f.pods, f.pods, f.jobs, clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	r.IDs = Identities{Suffix: func() string { n++; return fmt.Sprint(n) }, UID: func() string { return fmt.Sprintf("uid-pod-%d", n) }}
	f.r = r
	return f
}

// reconcile reconciles default/pi and returns when it asked to come back.
func (f *fixture) reconcile(t *testing.T) time.Duration {
	t.Helper()
	res, err := f.r.Reconcile(t.Context(), reconcilers.Key{Aggregate: domain.JobAggregate, Namespace: "default", Name: "pi"})
	if err != nil {
		t.Fatal(err)
	}
	return res.RequeueAfter
}

func (f *fixture) job() domain.Job {
	return f.jobs.Objects[domain.Key{Namespace: "default", Name: "pi"}]
}

// conditions are the Job's True conditions as "Type/Reason".
func (f *fixture) conditions() []string {
	var out []string
	for _, c := range f.job().Status.Conditions {
		if c.Status == domain.ConditionTrue {
			out = append(out, string(c.Type)+"/"+c.Reason)
		}
	}
	return out
}

func (f *fixture) want(t *testing.T, pods []string, active, succeeded, failed int32, conditions ...string) {
	t.Helper()
	st := f.job().Status
	if diff := cmp.Diff(pods, f.pods.Names()); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if st.Active != active || st.Succeeded != succeeded || st.Failed != failed {
		t.Errorf("active %d, succeeded %d, failed %d; want %d, %d, %d", st.Active, st.Succeeded, st.Failed, active, succeeded, failed)
	}
	if diff := cmp.Diff(conditions, f.conditions()); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}

// TestCompletionsAtParallelism: a Job of three completions, two at a
// time, runs two pods, replaces each that succeeds while completions
// remain, counts each success once, and is Complete after
// SuccessCriteriaMet once the third has succeeded.
func TestCompletionsAtParallelism(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) { three := int32(3); s.Completions, s.Parallelism = &three, 2 })
	f.reconcile(t)
	f.want(t, []string{"pi-1", "pi-2"}, 2, 0, 0)
	if st := f.job().Status; !st.StartTime.Equal(t0) {
		t.Errorf("start time %s, want %s", st.StartTime, t0)
	}
	p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-1"}]
	if !f.job().Owns(p) || p.Labels[domain.LabelJobName] != "pi" || p.Spec.RestartPolicy != domain.RestartNever {
		t.Errorf("pod %+v is not the Job's", p)
	}
	f.pods.run()
	f.pods.finish("pi-1", domain.PodSucceeded)
	f.reconcile(t)
	f.reconcile(t) // counted once, however often it is looked at
	f.want(t, []string{"pi-1", "pi-2", "pi-3"}, 2, 1, 0)

	f.clock.Step(42 * time.Second)
	f.pods.finish("pi-2", domain.PodSucceeded)
	f.pods.finish("pi-3", domain.PodSucceeded)
	f.reconcile(t)
	f.want(t, []string{"pi-1", "pi-2", "pi-3"}, 0, 3, 0, "SuccessCriteriaMet/CompletionsReached", "Complete/CompletionsReached")
	if st := f.job().Status; !st.CompletionTime.Equal(t0.Add(42 * time.Second)) {
		t.Errorf("completion time %s", st.CompletionTime)
	}
	written := len(f.jobs.Events)
	f.reconcile(t)
	if len(f.jobs.Events) != written {
		t.Errorf("a second reconcile of a complete Job wrote %v", f.jobs.Events[written:])
	}
}

// TestBackoffLimit: a failed pod is replaced after Kubernetes' backoff
// (10 s, then 20 s), and a failure past backoffLimit fails the Job with
// BackoffLimitExceeded.
func TestBackoffLimit(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) { s.BackoffLimit = 1 })
	f.reconcile(t)
	f.pods.run()
	f.pods.finish("pi-1", domain.PodFailed)
	if wait := f.reconcile(t); wait != 10*time.Second {
		t.Errorf("waits %s before a new pod, want 10s", wait)
	}
	f.want(t, []string{"pi-1"}, 0, 0, 1)
	f.clock.Step(10 * time.Second)
	f.reconcile(t)
	f.want(t, []string{"pi-1", "pi-2"}, 1, 0, 1)
	f.pods.run()
	f.pods.finish("pi-2", domain.PodFailed)
	f.reconcile(t)
	f.want(t, []string{"pi-1", "pi-2"}, 0, 0, 2, "FailureTarget/BackoffLimitExceeded", "Failed/BackoffLimitExceeded")
	if c, _ := f.job().Status.Condition(domain.JobFailed); c.Message != "Job has reached the specified backoff limit" {
		t.Errorf("message %q", c.Message)
	}
}

// TestRestartsOnFailureCountAgainstTheBackoffLimit: the restarts of a
// Job's containers that restart on failure are its failures.
func TestRestartsOnFailureCountAgainstTheBackoffLimit(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) { s.BackoffLimit = 2; s.Template.Spec.RestartPolicy = domain.RestartOnFailure })
	f.reconcile(t)
	f.pods.run()
	k := domain.Key{Namespace: "default", Name: "pi-1"}
	p := f.pods.Pods.Pods[k]
	p.Status.ContainerStatuses = []domain.ContainerStatus{{Name: "pi", RestartCount: 2}}
	f.pods.Pods.Pods[k] = p
	f.reconcile(t)
	f.want(t, []string{"pi-1"}, 0, 0, 1, "FailureTarget/BackoffLimitExceeded")
	f.pods.finalize()
	f.reconcile(t)
	f.want(t, nil, 0, 0, 1, "FailureTarget/BackoffLimitExceeded", "Failed/BackoffLimitExceeded")
}

// TestActiveDeadline: past activeDeadlineSeconds, the Job's running pod
// is deleted (and counted failed), and once it has stopped the Job is
// Failed with DeadlineExceeded.
func TestActiveDeadline(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) { d := int64(30); s.ActiveDeadlineSeconds = &d })
	if wait := f.reconcile(t); wait != 30*time.Second {
		t.Errorf("comes back after %s, want the deadline's 30s", wait)
	}
	f.pods.run()
	f.clock.Step(30 * time.Second)
	f.reconcile(t)
	if p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-1"}]; !p.Terminating() {
		t.Errorf("the running pod is not being deleted: %+v", p)
	}
	f.want(t, []string{"pi-1"}, 0, 0, 1, "FailureTarget/DeadlineExceeded")
	f.reconcile(t) // counted once
	f.want(t, []string{"pi-1"}, 0, 0, 1, "FailureTarget/DeadlineExceeded")
	f.pods.finalize()
	f.reconcile(t)
	f.want(t, nil, 0, 0, 1, "FailureTarget/DeadlineExceeded", "Failed/DeadlineExceeded")
	if c, _ := f.job().Status.Condition(domain.JobFailed); c.Message != "Job was active longer than specified deadline" {
		t.Errorf("message %q", c.Message)
	}
}

// TestTTLAfterFinished: a finished Job is deleted ttlSecondsAfterFinished
// after it finished, by the fake clock, and its pods with it.
func TestTTLAfterFinished(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) { ttl := int32(60); s.TTLSecondsAfterFinished = &ttl })
	f.reconcile(t)
	f.pods.run()
	f.pods.finish("pi-1", domain.PodSucceeded)
	if wait := f.reconcile(t); wait != time.Minute {
		t.Errorf("a finished Job comes back after %s, want its TTL", wait)
	}
	f.clock.Step(59 * time.Second)
	if wait := f.reconcile(t); wait != time.Second || !f.job().Exists() {
		t.Errorf("before its TTL: comes back after %s, exists %v", wait, f.job().Exists())
	}
	f.clock.Step(time.Second)
	f.reconcile(t)
	if f.job().Exists() {
		t.Fatal("the Job outlived its TTL")
	}
	f.reconcile(t) // its deletion brings the key back
	if p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-1"}]; !p.Terminating() {
		t.Errorf("the Job's pod is not being deleted: %+v", p)
	}
}

// TestSuspend: a suspended Job runs nothing and says so; resumed, it
// starts again, its start time reset.
func TestSuspend(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) { s.Suspend = true })
	f.reconcile(t)
	f.want(t, nil, 0, 0, 0, "Suspended/JobSuspended")
	if !f.job().Status.StartTime.IsZero() {
		t.Error("a suspended Job has a start time")
	}
	f.clock.Step(time.Minute)
	spec := f.job().Spec
	spec.Suspend = false
	if _, err := f.jobs.Execute(t.Context(), f.job().Key(), domain.UpdateJob{Spec: spec}); err != nil {
		t.Fatal(err)
	}
	f.reconcile(t)
	f.want(t, []string{"pi-1"}, 1, 0, 0)
	if st := f.job().Status; !st.StartTime.Equal(t0.Add(time.Minute)) {
		t.Errorf("start time %s after the resumption", st.StartTime)
	}
}

// TestKeysOfPodEvents: a pod's events reach the Job that controls it.
func TestKeysOfPodEvents(t *testing.T) {
	f := newFixture(t, nil)
	f.reconcile(t)
	f.reconcile(t)
	p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-1"}]
	if got := f.r.Controlled.Owners().Get(domain.Key{Namespace: p.Namespace, Name: p.Name}); got != "pi" {
		t.Errorf("the owner index has %q for pi-1", got)
	}
}

// TestWorkQueue: a Job without completions runs parallelism pods, makes
// no more once one has succeeded, and completes when the others have
// ended.
func TestWorkQueue(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) { s.Completions, s.Parallelism = nil, 2 })
	f.reconcile(t)
	f.pods.run()
	f.pods.finish("pi-1", domain.PodSucceeded)
	f.reconcile(t)
	f.want(t, []string{"pi-1", "pi-2"}, 1, 1, 0)
	f.pods.finish("pi-2", domain.PodSucceeded)
	f.reconcile(t)
	f.want(t, []string{"pi-1", "pi-2"}, 0, 2, 0, "SuccessCriteriaMet/CompletionsReached", "Complete/CompletionsReached")
}

// TestAJobOfTheSameNameDoesNotKeepAnotherJobsPods: the pods of an
// earlier Job of the same name (another UID) are collected, not counted.
func TestAJobOfTheSameNameDoesNotKeepAnotherJobsPods(t *testing.T) {
	f := newFixture(t, nil)
	old := domain.Pod{Namespace: "default", Name: "pi-old", UID: "uid-old", Version: 1,
		Owners: []domain.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: "uid-earlier", Controller: true}},
		Spec:   domain.PodSpec{NodeName: "n1"}, Status: domain.PodStatus{Phase: domain.PodSucceeded}}
	f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-old"}] = old
	f.reconcile(t)
	if p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-old"}]; !p.Terminating() {
		t.Errorf("the earlier Job's pod is not being deleted: %+v", p)
	}
	f.want(t, []string{"pi-1", "pi-old"}, 1, 0, 0)
}

// TestPodFailurePolicy: a failure a FailJob rule matches fails the Job
// at once with PodFailurePolicy and the rule's message, its backoff
// limit notwithstanding; one an Ignore rule matches is replaced at once
// and counted neither as a failure nor toward the backoff; one no rule
// matches counts as any failure.
func TestPodFailurePolicy(t *testing.T) {
	policy := func(s *domain.JobSpec) {
		s.BackoffLimit = 6
		s.PodFailurePolicy = &domain.JobPodFailurePolicy{Rules: []domain.PodFailurePolicyRule{
			{Action: domain.PodFailureFailJob, OnExitCodes: &domain.PodFailurePolicyOnExitCodes{Operator: "In", Values: []int32{42}}},
			{Action: domain.PodFailureIgnore, OnPodConditions: []domain.PodFailurePolicyOnCondition{{Type: "DisruptionTarget", Status: domain.ConditionTrue}}},
		}}
	}
	exited := func(f *fixture, name string, code int32, conds ...domain.PodCondition) {
		k := domain.Key{Namespace: "default", Name: name}
		p := f.pods.Pods.Pods[k]
		p.Status = domain.PodStatus{Phase: domain.PodFailed, Conditions: conds, ContainerStatuses: []domain.ContainerStatus{
			{Name: "pi", State: domain.ContainerState{Terminated: &domain.ContainerTerminated{ExitCode: code}}}}}
		f.pods.Pods.Pods[k] = p
	}

	f := newFixture(t, policy)
	f.reconcile(t)
	f.pods.run()
	exited(f, "pi-1", 1, domain.PodCondition{Type: domain.PodConditionDisruptionTarget, Status: domain.ConditionTrue})
	if wait := f.reconcile(t); wait != 0 {
		t.Errorf("an ignored failure waits %s for its replacement, want none", wait)
	}
	f.want(t, []string{"pi-1", "pi-2"}, 1, 0, 0)
	if tr := f.job().Tracking; tr.FailuresSinceSuccess != 0 || len(tr.Counted) != 1 {
		t.Errorf("tracking after an ignored failure: %+v", tr)
	}
	f.pods.run()
	exited(f, "pi-2", 3)
	f.reconcile(t)
	f.want(t, []string{"pi-1", "pi-2"}, 0, 0, 1)
	f.clock.Step(10 * time.Second)
	f.reconcile(t)
	f.pods.run()
	exited(f, "pi-3", 42)
	f.reconcile(t)
	f.want(t, []string{"pi-1", "pi-2", "pi-3"}, 0, 0, 2, "FailureTarget/PodFailurePolicy", "Failed/PodFailurePolicy")
	want := "Container pi for pod default/pi-3 failed with exit code 42 matching FailJob rule at index 0"
	if c, _ := f.job().Status.Condition(domain.JobFailed); c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
}
