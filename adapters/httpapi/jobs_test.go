package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

const jobPath = "/apis/batch/v1/namespaces/default/jobs"

// jobJSON is the Job kubectl create job pi --image=perl -- perl -e 1
// posts: no selector, no counts, restart policy Never.
const jobJSON = `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi"},` +
	`"spec":{"template":{"metadata":{},"spec":{"containers":[{"name":"pi","image":"perl","command":["perl","-e","1"]}],"restartPolicy":"Never"}}}}`

// decodeJob reads an answer as a Job.
var decodeJob = decodeInto[batchv1.Job]

// TestJobLifecycle: a Job is created with batch/v1's defaults and the
// selector Kubernetes generates, read, patched where batch/v1 allows it,
// given a status, shown as kubectl get jobs shows it, and deleted, over
// JSON.
func TestJobLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodeJob(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: jobPath + "?fieldValidation=Strict", body: jobJSON}))
	uid := string(created.UID)
	if *created.Spec.Parallelism != 1 || *created.Spec.Completions != 1 || *created.Spec.BackoffLimit != 6 ||
		*created.Spec.CompletionMode != batchv1.NonIndexedCompletion || *created.Spec.Suspend || uid == "" {
		t.Fatalf("created %+v", created.Spec)
	}
	if sel := metav1.FormatLabelSelector(created.Spec.Selector); sel != "batch.kubernetes.io/controller-uid="+uid {
		t.Errorf("selector %s", sel)
	}
	if l := created.Spec.Template.Labels; l["job-name"] != "pi" || l["batch.kubernetes.io/job-name"] != "pi" || l["controller-uid"] != uid {
		t.Errorf("template labels %v", l)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "POST", path: jobPath, body: jobJSON})

	patched := decodeJob(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: jobPath + "/pi", contentType: mergePatch,
		body: `{"metadata":{"labels":{"team":"maths"}},"spec":{"parallelism":3,"ttlSecondsAfterFinished":60}}`}))
	if *patched.Spec.Parallelism != 3 || *patched.Spec.TTLSecondsAfterFinished != 60 || patched.Labels["team"] != "maths" || patched.Generation != 2 {
		t.Errorf("patched %+v", patched)
	}

	api.clock.Step(time.Minute)
	start := metav1.NewTime(metaT0.Add(10 * time.Second))
	done := metav1.NewTime(metaT0.Add(50 * time.Second))
	patched.Status = batchv1.JobStatus{Succeeded: 1, StartTime: &start, CompletionTime: &done, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached},
	}}
	body, _ := json.Marshal(patched)
	status := decodeJob(t, mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: jobPath + "/pi/status", body: string(body)}))
	if status.Status.Succeeded != 1 || len(status.Status.Conditions) != 2 || !status.Status.CompletionTime.Equal(&done) {
		t.Errorf("status %+v", status.Status)
	}

	tbl := tableOf(t, base, jobPath)
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	want := []any{"pi", "Complete", "1/1", "40s", "60s", "pi", "perl", "batch.kubernetes.io/controller-uid=" + uid}
	if strings.Join(cols, ",") != "Name,Status,Completions,Duration,Age,Containers,Images,Selector" || len(tbl.Rows) != 1 || !equalCells(tbl.Rows[0].Cells, want) {
		t.Errorf("table %v %+v", cols, tbl.Rows)
	}

	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: jobPath + "/pi"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: jobPath + "/pi"})
}

// TestJobRefusalsAppendNothing: what kube-apiserver refuses of a Job
// herd refuses in its words — a restart policy of Always, a new
// template, completions changed, a stale resourceVersion — and so is an
// indexed Job, which herd does not run; the log does not move.
func TestJobRefusalsAppendNothing(t *testing.T) {
	f := changedObject(t, jobPath, "pi", jobJSON, `{"spec":{"parallelism":2}}`)
	other := func(from, to string) string {
		return strings.Replace(strings.Replace(jobJSON, `"name":"pi"}`, `"name":"other"}`, 1), from, to, 1)
	}
	f.refuse(t, []refusal{
		{"a restart policy of Always", req{method: "POST", path: jobPath, body: other(`"restartPolicy":"Never"`, `"restartPolicy":"Always"`)},
			http.StatusUnprocessableEntity, `spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`},
		{"no restart policy, which is Always", req{method: "POST", path: jobPath, body: other(`,"restartPolicy":"Never"`, ``)},
			http.StatusUnprocessableEntity, "spec.template.spec.restartPolicy"},
		{"an indexed job without completions", req{method: "POST", path: jobPath, body: other(`"spec":{"template"`, `"spec":{"completionMode":"Indexed","parallelism":2,"template"`)},
			http.StatusUnprocessableEntity, "spec.completions: Required value: when completion mode is Indexed"},
		{"an indexed job with a per-index backoff", req{method: "POST", path: jobPath, body: other(`"spec":{"template"`, `"spec":{"completionMode":"Indexed","completions":3,"backoffLimitPerIndex":1,"template"`)},
			http.StatusUnprocessableEntity, "spec.backoffLimitPerIndex"},
		{"the completion mode changed", req{method: "PATCH", path: jobPath + "/pi", contentType: mergePatch, body: `{"spec":{"completionMode":"Indexed"}}`},
			http.StatusUnprocessableEntity, "spec.completionMode: Invalid value: field is immutable"},
		{"a pod failure policy whose In names exit code 0", req{method: "POST", path: jobPath, body: other(`"spec":{"template"`,
			`"spec":{"podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":{"operator":"In","values":[0,42]}}]},"template"`)},
			http.StatusUnprocessableEntity, `spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: "0": must not be 0 for the In operator`},
		{"a pod failure policy for pods that restart", req{method: "POST", path: jobPath, body: strings.Replace(other(`"restartPolicy":"Never"`, `"restartPolicy":"OnFailure"`),
			`"spec":{"template"`, `"spec":{"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]}]},"template"`, 1)},
			http.StatusUnprocessableEntity, `only "Never" is supported when podFailurePolicy is specified`},
		{"a success policy for a Job without indexes", req{method: "POST", path: jobPath, body: other(`"spec":{"template"`,
			`"spec":{"successPolicy":{"rules":[{"succeededCount":1}]},"template"`)},
			http.StatusUnprocessableEntity, "spec.successPolicy: Invalid value: requires indexed completion mode"},
		{"a pod failure policy changed", req{method: "PATCH", path: jobPath + "/pi", contentType: mergePatch,
			body: `{"spec":{"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]}]}}}`},
			http.StatusUnprocessableEntity, "spec.podFailurePolicy: Invalid value: field is immutable"},
		{"a new template", req{method: "PATCH", path: jobPath + "/pi", contentType: strategicPatch,
			body: `{"spec":{"template":{"spec":{"containers":[{"name":"pi","image":"python"}]}}}}`}, http.StatusUnprocessableEntity, "spec.template: Invalid value: field is immutable"},
		{"completions changed", req{method: "PATCH", path: jobPath + "/pi", contentType: mergePatch, body: `{"spec":{"completions":4}}`},
			http.StatusUnprocessableEntity, "spec.completions"},
		{"a stale resourceVersion", req{method: "PUT", path: jobPath + "/pi", body: string(f.stale)}, http.StatusConflict, "the object has been modified"},
	})
}

// TestJobsThroughClientGo: client-go's typed clientset, with its default
// configuration (protobuf), creates, reads, lists, watches, updates the
// status of and deletes Jobs.
func TestJobsThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	cs, sent := recordingClientset(t, api.serve(t).URL, nil)
	ctx := t.Context()
	jobs := cs.BatchV1().Jobs("default")
	three, two := int32(3), int32(2)
	in := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Labels: map[string]string{"app": "pi"}},
		Spec: batchv1.JobSpec{Completions: &three, Parallelism: &two,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers: []corev1.Container{{Name: "pi", Image: "perl"}}}}},
	}
	created, err := jobs.Create(ctx, in, metav1.CreateOptions{})
	if err != nil || *created.Spec.Completions != 3 || created.UID == "" || created.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] != string(created.UID) {
		t.Fatalf("create: %+v, %v", created, err)
	}
	list, err := jobs.List(ctx, metav1.ListOptions{LabelSelector: "app=pi"})
	if err != nil || len(list.Items) != 1 || list.ResourceVersion != created.ResourceVersion {
		t.Fatalf("list: %+v, %v", list, err)
	}
	w, err := jobs.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	created.Status.Active, created.Status.Ready = 2, &two
	updated, err := jobs.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.Status.Active != 2 {
		t.Fatalf("update status: %+v, %v", updated, err)
	}
	if _, err := jobs.UpdateStatus(ctx, created, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("a stale status: %v, want a conflict", err)
	}
	select {
	case ev := <-w.ResultChan():
		j, ok := ev.Object.(*batchv1.Job)
		if ev.Type != watch.Modified || !ok || j.Status.Active != 2 || j.ResourceVersion != updated.ResourceVersion {
			t.Errorf("watched %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch saw no status")
	}
	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
	if len(sent()) < 2 {
		t.Errorf("client-go sent %d bodies, want the create and the status", len(sent()))
	}
	if err := jobs.Delete(ctx, "pi", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.Get(ctx, "pi", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want not found", err)
	}
}

// TestIndexedJobThroughClientGo: an Indexed Job written by client-go in
// its default configuration (protobuf) keeps its mode, and its status's
// completed indexes come back as written.
func TestIndexedJobThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	cs, sent := recordingClientset(t, api.serve(t).URL, nil)
	ctx := t.Context()
	jobs := cs.BatchV1().Jobs("default")
	three := int32(3)
	indexed := batchv1.IndexedCompletion
	created, err := jobs.Create(ctx, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "shards"},
		Spec: batchv1.JobSpec{Completions: &three, CompletionMode: &indexed,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "shard", Image: "busybox"}}}},
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}},
				{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{1, 2}}},
			}},
			SuccessPolicy: &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: new("0-1"), SucceededCount: new(int32(1))}}}},
	}, metav1.CreateOptions{})
	if err != nil || *created.Spec.CompletionMode != batchv1.IndexedCompletion || *created.Spec.Completions != 3 {
		t.Fatalf("create: %+v, %v", created, err)
	}
	// The pod failure policy comes back as sent, its pattern's status
	// defaulted to True.
	if p := created.Spec.PodFailurePolicy; p == nil || len(p.Rules) != 2 || p.Rules[0].OnPodConditions[0].Status != corev1.ConditionTrue ||
		p.Rules[1].OnExitCodes.Operator != batchv1.PodFailurePolicyOnExitCodesOpNotIn || len(p.Rules[1].OnExitCodes.Values) != 2 {
		t.Errorf("pod failure policy: %+v", p)
	}
	if p := created.Spec.SuccessPolicy; p == nil || len(p.Rules) != 1 || *p.Rules[0].SucceededIndexes != "0-1" || *p.Rules[0].SucceededCount != 1 {
		t.Errorf("success policy: %+v", p)
	}
	created.Status.Succeeded, created.Status.CompletedIndexes = 2, "0,2"
	updated, err := jobs.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.Status.CompletedIndexes != "0,2" {
		t.Fatalf("update status: %+v, %v", updated, err)
	}
	got, err := jobs.Get(ctx, "shards", metav1.GetOptions{})
	if err != nil || got.Status.CompletedIndexes != "0,2" || *got.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("get: %+v, %v", got, err)
	}
	// Completed indexes beyond the Job's completions are refused as
	// kube-apiserver refuses them, with the field named, and the log
	// does not move.
	head := api.head(t)
	got.Status.CompletedIndexes = "0,2-3"
	_, err = jobs.UpdateStatus(ctx, got, metav1.UpdateOptions{})
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil ||
		len(status.Status().Details.Causes) != 1 || status.Status().Details.Causes[0].Field != "status.completedIndexes" {
		t.Errorf("completed indexes beyond the completions: %v, want 422 naming status.completedIndexes", err)
	}
	if after := api.head(t); after != head {
		t.Errorf("a refused status moved the log from %d to %d", head, after)
	}
	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
}
