package projections

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
)

// TestCronJobView: CronJobs written through their Commands — created,
// suspended, given a status, warned of and deleted — read back as
// written on either engine, and a rebuild of the log gives the same
// rows.
func TestCronJobView(t *testing.T) { viewOnEachEngine(t, runCronJobView) }

func runCronJobView(t *testing.T, log events.Log) {
	ctx := t.Context()
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	w := NewWriter(log, clocktesting.NewFakeClock(t0), nil)
	cjs := w.CronJobCommands()
	view := NewCronJobView(log)
	spec := domain.CronJobSpec{Schedule: "*/5 * * * *", ConcurrencyPolicy: domain.CronJobForbid, SuccessfulJobsHistoryLimit: 3, FailedJobsHistoryLimit: 1,
		JobTemplate: domain.JobTemplate{Spec: domain.JobSpec{Parallelism: 1, Template: domain.PodTemplate{Spec: domain.PodSpec{
			RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "c", Image: "busybox"}}}}}}}
	tick, gone := domain.Key{Namespace: "default", Name: "tick"}, domain.Key{Namespace: "default", Name: "gone"}
	for _, k := range []domain.Key{tick, gone} {
		if _, err := cjs.Execute(ctx, k, domain.CreateCronJob{Meta: domain.ObjectMeta{Namespace: k.Namespace, Name: k.Name, UID: "uid-" + k.Name}, Spec: spec}); err != nil {
			t.Fatal(err)
		}
	}
	spec.Suspend = true
	last := t0.Add(5 * time.Minute)
	var cur domain.CronJob
	var err error
	for _, cmd := range []domain.CronJobCommand{
		domain.UpdateCronJob{Spec: spec},
		domain.RecordCronJobStatus{Status: domain.CronJobStatus{Active: []domain.CronJobActiveJob{{Name: "tick-1", UID: "j"}}, LastScheduleTime: &last}},
		domain.WarnCronJob{Reason: domain.CronJobTooManyMissedTimes, Message: "too many"},
	} {
		if cur, err = cjs.Execute(ctx, tick, cmd); err != nil {
			t.Fatal(err)
		}
	}
	head, _ := log.Head(ctx)
	if !cur.Spec.Suspend || cur.Generation != 2 || cur.Version != 4 || cur.ResourceVersion != head || len(cur.Status.Active) != 1 {
		t.Errorf("after suspend, status and warning: %+v (head %d)", cur, head)
	}
	if got, err := view.Get(ctx, "default", "tick"); err != nil || !cmp.Equal(cur, got) {
		t.Errorf("view differs from the writer's answer (-writer +view):\n%s%v", cmp.Diff(cur, got), err)
	}
	if _, err := cjs.Execute(ctx, gone, domain.DeleteCronJob{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "default", "gone"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("get after delete: %v, want not found", err)
	}
	if list, _, err := view.List(ctx, "default"); err != nil || len(list) != 1 || list[0].Name != "tick" {
		t.Errorf("list: %+v, %v", list, err)
	}
}
