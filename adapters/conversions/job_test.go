package conversions

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// piJob is a Job with every field herd keeps set.
func piJob() domain.Job {
	grace, three, deadline, ttl := int64(10), int32(3), int64(600), int32(60)
	return domain.Job{Object: domain.Object[domain.JobSpec, domain.JobStatus]{
		ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "pi", UID: "uid-pi", Labels: map[string]string{"app": "pi"}, Generation: 2, CreatedAt: t0},
		Spec: domain.JobSpec{
			Parallelism: 2, Completions: &three, BackoffLimit: 4, ActiveDeadlineSeconds: &deadline, TTLSecondsAfterFinished: &ttl,
			CompletionMode: domain.JobNonIndexed, Suspend: true,
			Selector: domain.LabelSelector{MatchLabels: map[string]string{domain.LabelJobControllerUID: "uid-pi"}},
			Template: domain.PodTemplate{
				Labels: map[string]string{domain.LabelJobControllerUID: "uid-pi", "app": "pi"},
				Spec: domain.PodSpec{RestartPolicy: domain.RestartOnFailure, TerminationGracePeriodSeconds: grace,
					Containers: []domain.Container{{Name: "pi", Image: "perl", Command: []string{"perl", "-e", "1"}}}},
				TerminationGracePeriodSeconds: &grace,
			},
		},
		Status: domain.JobStatus{Active: 1, Ready: 1, Succeeded: 2, Failed: 1, StartTime: t0, Conditions: []domain.JobCondition{
			{Type: domain.JobSuspended, Status: domain.ConditionTrue, Reason: domain.JobReasonSuspended, LastProbeTime: t0, LastTransitionTime: t0}}},
		Version: 4, ResourceVersion: 17,
	}}
}

func TestJobFromAPIReadsBackJobToAPI(t *testing.T) {
	j := piJob()
	api := JobToAPI(j)
	if api.ResourceVersion != "17" || *api.Spec.Parallelism != 2 || *api.Spec.Completions != 3 || !*api.Spec.Suspend ||
		api.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure || api.Status.CompletionTime != nil || *api.Status.Ready != 1 {
		t.Fatalf("served as %+v", api)
	}
	got, err := JobFromAPI(api)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.CreateJob{Meta: domain.ObjectMeta{Namespace: j.Namespace, Name: j.Name, Labels: j.Labels}, Spec: j.Spec}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-served +read back):\n%s", diff)
	}
	if diff := cmp.Diff(j.Status, JobStatusFromAPI(api.Status)); diff != "" {
		t.Errorf("status (-served +read back):\n%s", diff)
	}
}

func TestJobFromAPIDefaults(t *testing.T) {
	five := int32(5)
	tests := []struct {
		name                     string
		parallelism, completions *int32
		wantParallelism          int32
		wantCompletions          *int32
	}{
		{"neither", nil, nil, 1, ptrTo(int32(1))},
		{"parallelism alone: a work queue", &five, nil, 5, nil},
		{"completions alone", nil, &five, 1, &five},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := batchv1.Job{Spec: batchv1.JobSpec{Parallelism: tt.parallelism, Completions: tt.completions}}
			got, err := JobFromAPI(in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Spec.Parallelism != tt.wantParallelism || !cmp.Equal(got.Spec.Completions, tt.wantCompletions) ||
				got.Spec.BackoffLimit != 6 || got.Spec.CompletionMode != domain.JobNonIndexed {
				t.Errorf("spec %+v", got.Spec)
			}
		})
	}
}

func TestJobFromAPIRefusesWhatHerdDoesNotRun(t *testing.T) {
	tests := []struct {
		name   string
		change func(*batchv1.Job)
		field  string
	}{
		{"another controller", func(j *batchv1.Job) { j.Spec.ManagedBy = ptrTo("example.com/queue") }, "spec.managedBy"},
		{"replacing only failed pods", func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptrTo(batchv1.Failed) }, "spec.podReplacementPolicy"},
		{"a restart policy that is none", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "Sometimes" }, "spec.template.spec.restartPolicy"},
		{"a kind of another", func(j *batchv1.Job) { j.Kind = "CronJob" }, "kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := batchv1.Job{}
			tt.change(&in)
			if _, err := JobFromAPI(in); err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("error %v, want one naming %s", err, tt.field)
			}
		})
	}
}

// TestJobPodFailurePolicyRoundTrips: a Job's pod failure policy is read
// and written back as batch/v1 has it, a condition pattern's status
// defaulted to True by the domain as kube-apiserver defaults it.
func TestJobPodFailurePolicyRoundTrips(t *testing.T) {
	in := batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pi", UID: "uid-pi"}, Spec: batchv1.JobSpec{
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}},
		PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
			{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
				ContainerName: ptrTo("main"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}},
			{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}},
		}},
	}}
	create, err := JobFromAPI(in)
	if err != nil {
		t.Fatal(err)
	}
	create.Meta.UID = "uid-pi" // the API's to give
	evs, err := domain.DecideJob(domain.Job{}, create, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	j := domain.Job{}
	for _, e := range evs {
		j = domain.EvolveJob(j, e)
	}
	want := in.Spec.PodFailurePolicy.DeepCopy()
	want.Rules[1].OnPodConditions[0].Status = corev1.ConditionTrue
	if diff := cmp.Diff(want, JobToAPI(j).Spec.PodFailurePolicy); diff != "" {
		t.Errorf("policy written back (-want +got):\n%s", diff)
	}
}
