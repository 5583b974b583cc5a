package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// martianCronJob names a time zone that is in no zone database.
const martianCronJob = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: martian
spec:
  schedule: "0 3 * * *"
  timeZone: Mars/Olympus_Mons
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: martian
            image: busybox
`

// TestKubectlCronJobs runs kubectl's CronJob commands against herd serve
// --demo on herd's own clock: kubectl create cronjob with a schedule of
// every minute makes, within the minute, a Job named after its
// scheduled minute and owned by the CronJob, which runs to completion
// on the demo's mock runtime; kubectl get cronjobs prints Kubernetes'
// columns; kubectl describe cronjob shows the controller's
// SuccessfulCreate; kubectl patch suspends it; -o yaml shows batch/v1's
// defaults; kubectl create job --from=cronjob/ makes a Job of its
// template; a schedule robfig/cron cannot read and an unknown time zone
// are refused naming the field; kubectl delete cronjob takes its Jobs
// with it.
func TestKubectlCronJobs(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)

	if out := kc.must(t, "create", "cronjob", "tick", "--image=busybox", "--schedule=* * * * *", "--", "sh", "-c", "exit 0"); !strings.Contains(out, "cronjob.batch/tick created") {
		t.Fatalf("kubectl create cronjob said %q", out)
	}
	header, rows := columns(kc.must(t, "get", "cronjobs"))
	if !slices.Equal(header, []string{"NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"}) || len(rows) != 1 ||
		!slices.Equal(rows[0][:5], []string{"tick", "* * * * *", "<none>", "False", "0"}) {
		t.Errorf("kubectl get cronjobs: %q %q", header, rows)
	}

	// Within the minute (and a little): a Job of the minute, the
	// CronJob's, which completes.
	named := regexp.MustCompile(`^tick-(\d+)$`)
	var job string
	eventually(t, 90*time.Second, func() error {
		out := kc.must(t, "get", "jobs", "-o", `jsonpath={range .items[*]}{.metadata.name} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.status.succeeded}{"\n"}{end}`)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 3 && named.MatchString(f[0]) && f[1] == "CronJob/tick" && f[2] == "1" {
				job = f[0]
				return nil
			}
		}
		return fmt.Errorf("no completed Job of the CronJob yet: %q", out)
	})
	minutes, _ := strconv.ParseInt(named.FindStringSubmatch(job)[1], 10, 64)
	if at := time.Unix(minutes*60, 0); time.Since(at) < 0 || time.Since(at) > 3*time.Minute {
		t.Errorf("job %s is of %s, not a minute just past", job, at)
	}
	eventually(t, 30*time.Second, func() error {
		out := kc.must(t, "get", "cronjob", "tick", "-o", "jsonpath={.status.lastScheduleTime} {.status.lastSuccessfulTime}")
		if len(strings.Fields(out)) != 2 {
			return fmt.Errorf("tick's status: %q, want a last schedule and a last success", out)
		}
		return nil
	})

	if out := kc.must(t, "describe", "cronjob", "tick"); !strings.Contains(out, "SuccessfulCreate") || !strings.Contains(out, "Created job "+job) {
		t.Errorf("kubectl describe cronjob shows no creation of %s:\n%s", job, out)
	}

	if out := kc.must(t, "patch", "cronjob", "tick", "-p", `{"spec":{"suspend":true}}`); !strings.Contains(out, "patched") {
		t.Errorf("kubectl patch said %q", out)
	}
	if _, rows := columns(kc.must(t, "get", "cronjobs")); len(rows) != 1 || rows[0][3] != "True" {
		t.Errorf("a suspended CronJob: %q", rows)
	}
	yaml := kc.must(t, "get", "cronjob", "tick", "-o", "yaml")
	for _, want := range []string{"concurrencyPolicy: Allow", "successfulJobsHistoryLimit: 3", "failedJobsHistoryLimit: 1", "suspend: true", "schedule: '* * * * *'"} {
		if !strings.Contains(yaml, want) {
			t.Errorf("kubectl get cronjob -o yaml has no %q:\n%s", want, yaml)
		}
	}

	if res := kc.run(t, "create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *"); res.Code == 0 || !strings.Contains(res.Stderr, "spec.schedule") {
		t.Errorf("a minute of 61: exit %d, stderr %q, want it refused naming spec.schedule", res.Code, res.Stderr)
	}
	path := filepath.Join(t.TempDir(), "martian.yaml")
	if err := os.WriteFile(path, []byte(martianCronJob), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := kc.run(t, "create", "-f", path); res.Code == 0 || !strings.Contains(res.Stderr, "spec.timeZone") {
		t.Errorf("an unknown time zone: exit %d, stderr %q, want it refused naming spec.timeZone", res.Code, res.Stderr)
	}

	// A run by hand, as kubectl makes it from the CronJob's template: the
	// CronJob's too, so that deleting the CronJob takes it as well.
	if out := kc.must(t, "create", "job", "by-hand", "--from=cronjob/tick"); !strings.Contains(out, "job.batch/by-hand created") {
		t.Errorf("kubectl create job --from said %q", out)
	}
	if out := kc.must(t, "get", "job", "by-hand", "-o", "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}"); out != "CronJob/tick" {
		t.Errorf("a Job made from the CronJob belongs to %q", out)
	}
	// The CronJob says, as Kubernetes' controller does, that it did not
	// make it (and, as there, leaves it out of its active runs).
	eventually(t, 60*time.Second, func() error {
		if out := kc.must(t, "describe", "cronjob", "tick"); !strings.Contains(out, "UnexpectedJob") || !strings.Contains(out, "Saw a job that the controller did not create or forgot: by-hand") {
			return fmt.Errorf("kubectl describe cronjob tick says no UnexpectedJob of by-hand:\n%s", out)
		}
		return nil
	})
	if header, _ := columns(kc.must(t, "get", "cj", "-o", "wide")); !slices.Equal(header[len(header)-3:], []string{"CONTAINERS", "IMAGES", "SELECTOR"}) {
		t.Errorf("kubectl get cj -o wide: %q", header)
	}

	// Deleted orphaning its Jobs: they stay, without their reference.
	kc.must(t, "create", "cronjob", "keep", "--image=busybox", "--schedule=0 0 1 1 *", "--", "sh", "-c", "exit 0")
	kc.must(t, "create", "job", "kept", "--from=cronjob/keep")
	if out := kc.must(t, "delete", "cronjob", "keep", "--cascade=orphan"); !strings.Contains(out, `cronjob.batch "keep" deleted`) {
		t.Errorf("kubectl delete --cascade=orphan said %q", out)
	}
	eventually(t, 60*time.Second, func() error {
		if out := kc.must(t, "get", "job", "kept", "-o", "jsonpath={.metadata.ownerReferences}"); out != "" {
			return fmt.Errorf("a Job of a CronJob deleted orphaning it still names %s", out)
		}
		return nil
	})

	// Deleted in the foreground: its Jobs go first, then the CronJob.
	if out := kc.must(t, "delete", "cronjob", "tick", "--cascade=foreground"); !strings.Contains(out, `cronjob.batch "tick" deleted`) {
		t.Errorf("kubectl delete said %q", out)
	}
	eventually(t, 60*time.Second, func() error {
		if out := kc.must(t, "get", "jobs", "-o", "name"); strings.Contains(out, "tick-") || strings.Contains(out, "by-hand") {
			return fmt.Errorf("a deleted CronJob's Jobs: %q, want none", out)
		}
		if res := kc.run(t, "get", "cronjob", "tick"); res.Code == 0 {
			return fmt.Errorf("the CronJob deleted in the foreground is still there once its Jobs are gone")
		}
		return nil
	})
	if out := strings.TrimSpace(kc.must(t, "get", "job", "kept", "-o", "name")); out != "job.batch/kept" {
		t.Errorf("the orphaned Job: %q", out)
	}
}

// columns splits kubectl's table at runs of two spaces or more, which
// keeps "LAST SCHEDULE" and a schedule's "* * * * *" whole.
func columns(out string) (header []string, rows [][]string) {
	gap := regexp.MustCompile(`\s{2,}`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header = gap.Split(lines[0], -1)
	for _, l := range lines[1:] {
		rows = append(rows, gap.Split(l, -1))
	}
	return header, rows
}

// TestClientGoCronJobs: client-go's typed clientset in its default
// configuration sends CronJobs to herd serve in protobuf and reads them,
// their list and their watch back: create, list, watch, update (suspend)
// and delete.
func TestClientGoCronJobs(t *testing.T) {
	t.Parallel()
	rec, token := startHerdWithToken(t)
	cs := newClientset(t, &rest.Config{Host: rec.URL, BearerToken: token})
	ctx := t.Context()
	cjs := cs.BatchV1().CronJobs("default")
	in := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
		Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", ConcurrencyPolicy: batchv1.ForbidConcurrent,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "backup", Image: "busybox"}}}}}}},
	}
	created, err := cjs.Create(ctx, in, metav1.CreateOptions{})
	if err != nil || created.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent || *created.Spec.SuccessfulJobsHistoryLimit != 3 {
		t.Fatalf("create: %+v, %v", created, err)
	}
	list, err := cjs.List(ctx, metav1.ListOptions{})
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
	if _, err := cjs.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		if c, ok := ev.Object.(*batchv1.CronJob); ev.Type != watch.Modified || !ok || !*c.Spec.Suspend {
			t.Errorf("watched %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the watch saw no update")
	}
	if err := cjs.Delete(ctx, "nightly", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cjs.Get(ctx, "nightly", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want not found", err)
	}
	sent := rec.seen(func(e exchange) bool {
		return e.resource == "cronjobs" && e.method == "POST" && e.sent == runtime.ContentTypeProtobuf
	})
	watched := rec.seen(func(e exchange) bool {
		return e.resource == "cronjobs" && e.watch && strings.HasPrefix(e.answered, runtime.ContentTypeProtobuf)
	})
	if !sent || !watched {
		t.Errorf("client-go did not speak protobuf to herd:\n%s", rec.dump())
	}
}
