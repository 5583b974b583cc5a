package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"herd/domain"
	"herd/events"
)

const cronJobPath = "/apis/batch/v1/namespaces/default/cronjobs"

// cronJobJSON is the CronJob kubectl create cronjob tick
// --image=busybox --schedule='*/5 * * * *' posts.
const cronJobJSON = `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"tick"},"spec":{"schedule":"*/5 * * * *",` +
	`"jobTemplate":{"metadata":{"name":"tick"},"spec":{"template":{"metadata":{},"spec":{"containers":[{"name":"tick","image":"busybox"}],"restartPolicy":"OnFailure"}}}}}}`

// decodeCronJob reads an answer as a CronJob.
var decodeCronJob = decodeInto[batchv1.CronJob]

// TestCronJobLifecycle: a CronJob is created with batch/v1's defaults,
// suspended by a patch, shown as kubectl get cronjobs shows it, and
// deleted, over JSON.
func TestCronJobLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodeCronJob(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cronJobPath + "?fieldValidation=Strict", body: cronJobJSON}))
	if created.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent || *created.Spec.SuccessfulJobsHistoryLimit != 3 ||
		*created.Spec.FailedJobsHistoryLimit != 1 || *created.Spec.Suspend || created.UID == "" || created.Spec.JobTemplate.Spec.Selector != nil {
		t.Fatalf("created %+v", created.Spec)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "POST", path: cronJobPath, body: cronJobJSON})
	patched := decodeCronJob(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: cronJobPath + "/tick", contentType: mergePatch,
		body: `{"spec":{"suspend":true,"timeZone":"Europe/Paris"}}`}))
	if !*patched.Spec.Suspend || *patched.Spec.TimeZone != "Europe/Paris" || patched.Generation != 2 {
		t.Errorf("patched %+v", patched.Spec)
	}
	api.clock.Step(time.Minute)
	last := metav1.NewTime(metaT0.Add(30 * time.Second))
	patched.Status = batchv1.CronJobStatus{LastScheduleTime: &last, Active: []corev1.ObjectReference{{Kind: "Job", Name: "tick-1", UID: "u"}}}
	body, _ := json.Marshal(patched)
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: cronJobPath + "/tick/status", body: string(body)})

	tbl := tableOf(t, base, cronJobPath)
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	want := []any{"tick", "*/5 * * * *", "Europe/Paris", "True", float64(1), "30s", "60s", "tick", "busybox", "<none>"}
	if strings.Join(cols, ",") != "Name,Schedule,Timezone,Suspend,Active,Last Schedule,Age,Containers,Images,Selector" ||
		len(tbl.Rows) != 1 || !equalCells(tbl.Rows[0].Cells, want) {
		t.Errorf("table %v %+v", cols, tbl.Rows)
	}
	// In the foreground it stays, being deleted, until the garbage
	// collector (not run here) finds its Jobs gone.
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: cronJobPath + "/tick",
		body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}`})
	var deleting batchv1.CronJob
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: cronJobPath + "/tick"}).body, &deleting); err != nil {
		t.Fatal(err)
	}
	if deleting.DeletionTimestamp == nil || !slices.Contains(deleting.Finalizers, metav1.FinalizerDeleteDependents) {
		t.Errorf("a CronJob deleted in the foreground: deletionTimestamp %v, finalizers %v", deleting.DeletionTimestamp, deleting.Finalizers)
	}
}

// TestCronJobRefusalsNameTheField: a schedule robfig/cron cannot read,
// a time zone that does not exist, an unknown concurrency policy and a
// negative deadline are refused naming the field, and append nothing.
func TestCronJobRefusalsNameTheField(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cronJobPath, body: cronJobJSON})
	head := api.head(t)
	other := func(from, to string) string {
		return strings.Replace(strings.Replace(cronJobJSON, `"metadata":{"name":"tick"},"spec"`, `"metadata":{"name":"other"},"spec"`, 1), from, to, 1)
	}
	for _, tt := range []struct {
		name string
		rq   req
		want string
	}{
		{"a bad schedule", req{method: "POST", path: cronJobPath, body: other(`*/5 * * * *`, `*/5 * * *`)}, "spec.schedule: Invalid value"},
		{"a minute out of range", req{method: "POST", path: cronJobPath, body: other(`*/5 * * * *`, `61 * * * *`)}, "spec.schedule"},
		{"an unknown time zone", req{method: "POST", path: cronJobPath, body: other(`"schedule"`, `"timeZone":"Mars/Olympus","schedule"`)}, "spec.timeZone"},
		{"an unknown policy", req{method: "POST", path: cronJobPath, body: other(`"schedule"`, `"concurrencyPolicy":"Sometimes","schedule"`)}, `spec.concurrencyPolicy: Unsupported value: "Sometimes"`},
		{"a negative deadline", req{method: "POST", path: cronJobPath, body: other(`"schedule"`, `"startingDeadlineSeconds":-5,"schedule"`)}, "spec.startingDeadlineSeconds"},
		{"pods that never end", req{method: "POST", path: cronJobPath, body: other(`"restartPolicy":"OnFailure"`, `"restartPolicy":"Always"`)}, "spec.jobTemplate.spec.template.spec.restartPolicy"},
		{"a bad schedule patched in", req{method: "PATCH", path: cronJobPath + "/tick", contentType: mergePatch, body: `{"spec":{"schedule":"every day"}}`}, "spec.schedule"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refusedLeavingTheLog(t, api, base, http.StatusUnprocessableEntity, tt.rq, tt.want, head)
		})
	}
}

// TestCronJobsThroughClientGo: client-go's typed clientset, in its
// default configuration (protobuf), creates, lists, watches, updates
// and deletes CronJobs.
func TestCronJobsThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	cs, sent := recordingClientset(t, api.serve(t).URL, nil)
	ctx := t.Context()
	cjs := cs.BatchV1().CronJobs("default")
	tz := "Asia/Tokyo"
	in := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "tick", Labels: map[string]string{"app": "tick"}},
		Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", TimeZone: &tz, ConcurrencyPolicy: batchv1.ForbidConcurrent,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "tick", Image: "busybox"}}}}}}},
	}
	created, err := cjs.Create(ctx, in, metav1.CreateOptions{})
	if err != nil || created.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent || *created.Spec.TimeZone != tz {
		t.Fatalf("create: %+v, %v", created, err)
	}
	list, err := cjs.List(ctx, metav1.ListOptions{LabelSelector: "app=tick"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	w, err := cjs.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	suspend := true
	created.Spec.Suspend = &suspend
	updated, err := cjs.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || !*updated.Spec.Suspend {
		t.Fatalf("update: %+v, %v", updated, err)
	}
	select {
	case ev := <-w.ResultChan():
		c, ok := ev.Object.(*batchv1.CronJob)
		if ev.Type != watch.Modified || !ok || !*c.Spec.Suspend {
			t.Errorf("watched %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch saw no update")
	}
	bad := in.DeepCopy()
	bad.Name, bad.Spec.Schedule = "bad", "not a schedule"
	if _, err := cjs.Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.schedule") {
		t.Errorf("a bad schedule: %v, want it refused naming spec.schedule", err)
	}
	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
	if err := cjs.Delete(ctx, "tick", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestCronJobEventsAsKubernetesWritesThem: the Job the CronJob
// reconciler creates, a warning it records, a finished Job and one an
// operator deleted taken off its active list, and a Job an operator made
// from the CronJob, are Events about the CronJob from the
// cronjob-controller, as kubectl describe cronjob selects them.
func TestCronJobEventsAsKubernetesWritesThem(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	cj := decodeCronJob(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cronJobPath, body: cronJobJSON}))
	ctx := events.WithMetadata(t.Context(), events.Metadata{Actor: "system:herd:cronjob", Source: "reconciler/cronjob"})
	key := domain.Key{Namespace: "default", Name: "tick"}
	if _, err := api.writer.CronJobCommands().Execute(ctx, key, domain.WarnCronJob{Reason: domain.CronJobTooManyMissedTimes, Message: "too many missed start times"}); err != nil {
		t.Fatal(err)
	}
	job := domain.CreateJob{
		Meta: domain.ObjectMeta{Namespace: "default", Name: "tick-29932085", UID: "uid-j",
			Owners: []domain.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "tick", UID: string(cj.UID), Controller: true}}},
		Spec: domain.JobSpec{Parallelism: 1, Template: domain.PodTemplate{Spec: domain.PodSpec{RestartPolicy: domain.RestartNever,
			Containers: []domain.Container{{Name: "tick", Image: "busybox"}}}}},
	}
	if _, err := api.writer.JobCommands().Execute(ctx, domain.Key{Namespace: "default", Name: job.Meta.Name}, job); err != nil {
		t.Fatal(err)
	}
	// The Job runs, finishes, and the CronJob takes it off its active
	// list: the controller says it saw it complete.
	active := domain.CronJobStatus{Active: []domain.CronJobActiveJob{{Name: job.Meta.Name, UID: "uid-j"}}}
	if _, err := api.writer.CronJobCommands().Execute(ctx, key, domain.RecordCronJobStatus{Status: active}); err != nil {
		t.Fatal(err)
	}
	done := domain.JobStatus{Succeeded: 1}.WithCondition(domain.JobCondition{Type: domain.JobComplete, Status: domain.ConditionTrue}, time.Now())
	if _, err := api.writer.JobCommands().Execute(ctx, domain.Key{Namespace: "default", Name: job.Meta.Name}, domain.RecordJobStatus{Status: done}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.writer.CronJobCommands().Execute(ctx, key, domain.RecordCronJobStatus{Status: domain.CronJobStatus{}}); err != nil {
		t.Fatal(err)
	}
	// Two more runs: an operator deletes one, which goes missing; the
	// reconciler deletes the other itself (a Replace), which does not.
	operator := events.WithMetadata(t.Context(), events.Metadata{Actor: "admin", Source: "httpapi"})
	active = domain.CronJobStatus{}
	for i, by := range []context.Context{operator, ctx} {
		run := job
		run.Meta.Name, run.Meta.UID = fmt.Sprintf("tick-%d", 29932090+i*5), fmt.Sprintf("uid-%d", i)
		jk := domain.Key{Namespace: "default", Name: run.Meta.Name}
		if _, err := api.writer.JobCommands().Execute(ctx, jk, run); err != nil {
			t.Fatal(err)
		}
		active.Active = append(active.Active, domain.CronJobActiveJob{Name: run.Meta.Name, UID: run.Meta.UID})
		if _, err := api.writer.CronJobCommands().Execute(ctx, key, domain.RecordCronJobStatus{Status: active}); err != nil {
			t.Fatal(err)
		}
		if _, err := api.writer.JobCommands().Execute(by, jk, domain.DeleteJob{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := api.writer.CronJobCommands().Execute(ctx, key, domain.RecordCronJobStatus{Status: domain.CronJobStatus{}}); err != nil {
		t.Fatal(err)
	}
	// A run an operator made from the CronJob (kubectl create job
	// --from): unexpected, and not among its active runs.
	byHand := job
	byHand.Meta.Name, byHand.Meta.UID = "by-hand", "uid-h"
	if _, err := api.writer.JobCommands().Execute(operator, domain.Key{Namespace: "default", Name: "by-hand"}, byHand); err != nil {
		t.Fatal(err)
	}
	var l corev1.EventList
	a := mustSend(t, nil, base, http.StatusOK, req{method: "GET",
		path: "/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DCronJob,involvedObject.name%3Dtick,involvedObject.uid%3D" + string(cj.UID)})
	if err := json.Unmarshal(a.body, &l); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range l.Items {
		got = append(got, e.Type+" "+e.Reason+" "+e.Message+" "+e.Source.Component)
	}
	want := []string{"Warning TooManyMissedTimes too many missed start times cronjob-controller", "Normal SuccessfulCreate Created job tick-29932085 cronjob-controller",
		"Normal SawCompletedJob Saw completed job: tick-29932085, condition: Complete cronjob-controller",
		"Normal SuccessfulCreate Created job tick-29932090 cronjob-controller",
		"Normal SuccessfulCreate Created job tick-29932095 cronjob-controller",
		"Normal SuccessfulDelete Deleted job tick-29932095 cronjob-controller",
		"Normal MissingJob Active job went missing: tick-29932090 cronjob-controller",
		"Warning UnexpectedJob Saw a job that the controller did not create or forgot: by-hand cronjob-controller"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestCronJobTemplatesKeepTheirPodFailurePolicy: a CronJob's Job
// template takes a pod failure policy as a Job does, defaulted as
// kube-apiserver defaults it and checked in the template's field paths.
func TestCronJobTemplatesKeepTheirPodFailurePolicy(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	never := strings.Replace(cronJobJSON, `"restartPolicy":"OnFailure"`, `"restartPolicy":"Never"`, 1)
	withPolicy := func(policy string) string {
		return strings.Replace(never, `"jobTemplate":{"metadata":{"name":"tick"},"spec":{`, `"jobTemplate":{"metadata":{"name":"tick"},"spec":{"podFailurePolicy":`+policy+`,`, 1)
	}
	created := decodeCronJob(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cronJobPath,
		body: withPolicy(`{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]}]}`)}))
	p := created.Spec.JobTemplate.Spec.PodFailurePolicy
	if p == nil || len(p.Rules) != 1 || p.Rules[0].Action != batchv1.PodFailurePolicyActionIgnore || p.Rules[0].OnPodConditions[0].Status != corev1.ConditionTrue {
		t.Errorf("the template's policy: %+v", p)
	}
	a := mustSend(t, nil, base, http.StatusUnprocessableEntity, req{method: "POST", path: cronJobPath,
		body: strings.Replace(withPolicy(`{"rules":[{"action":"FailJob"}]}`), `"name":"tick"}`, `"name":"tock"}`, 1)})
	if !strings.Contains(string(a.body), "spec.jobTemplate.spec.podFailurePolicy.rules[0]: Invalid value") {
		t.Errorf("a rule that matches nothing: %s", a.body)
	}
}
