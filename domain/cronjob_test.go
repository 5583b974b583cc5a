package domain

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleCronJobSpec is a CronJob every five minutes of a Job of one pod.
func sampleCronJobSpec() CronJobSpec {
	return CronJobSpec{
		Schedule: "*/5 * * * *", ConcurrencyPolicy: CronJobAllow, SuccessfulJobsHistoryLimit: 3, FailedJobsHistoryLimit: 1,
		JobTemplate: JobTemplate{Spec: JobSpec{Parallelism: 1, BackoffLimit: 6,
			Template: PodTemplate{Spec: PodSpec{RestartPolicy: RestartOnFailure, Containers: []Container{{Name: "tick", Image: "busybox"}}}}}},
	}
}

func sampleCronJobEvents() []Event {
	spec := sampleCronJobSpec()
	scheduled := at(3)
	return []Event{
		CronJobCreated{Namespace: "default", Name: "tick", UID: "cj-uid", Spec: spec, At: at(1)},
		CronJobChanged{Labels: map[string]string{"team": "a"}, Spec: spec, Generation: 2, At: at(2)},
		CronJobMetadataChanged{Labels: map[string]string{"team": "b"}, Changed: []string{"metadata.labels.team"}, At: at(2)},
		CronJobStatusRecorded{Status: CronJobStatus{Active: []CronJobActiveJob{{Name: "tick-1", UID: "j"}}, LastScheduleTime: &scheduled}, At: at(3)},
		CronJobWarned{Reason: CronJobMissSchedule, Message: "Missed scheduled time to start a job", At: at(4)},
		CronJobOwnersChanged{Owners: []OwnerReference{{APIVersion: "example.com/v1", Kind: "Schedule", Name: "nightly", UID: "s-uid", Controller: true}}, At: at(5)},
		CronJobDeletionRequested{At: at(5)},
		CronJobDeleted{Orphan: true, At: at(6)},
	}
}

// TestCronJobDeletionFollowsItsPropagation: a CronJob deleted in the
// foreground stays, being deleted, until the garbage collector finishes
// it; orphaning, its tombstone keeps its uid and says so; in the
// background it goes at once.
func TestCronJobDeletionFollowsItsPropagation(t *testing.T) {
	evs, err := DecideObject[CronJob](CronJob{}, CreateCronJob{Meta: ObjectMeta{Namespace: "default", Name: "tick", UID: "u"}, Spec: sampleCronJobSpec()}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	c := EvolveObject(CronJob{}, evs[0])
	fold := func(c CronJob, cmd CronJobCommand) (CronJob, []Event) {
		t.Helper()
		evs, err := DecideObject[CronJob](c, cmd, at(2))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			c = EvolveObject(c, e)
		}
		return c, evs
	}
	deleting, evs := fold(c, DeleteCronJob{Propagation: PropagateForeground})
	if len(evs) != 1 || !deleting.Exists() || deleting.DeletionRequestedAt == nil {
		t.Fatalf("in the foreground: %v, exists %v, being deleted %v", evs, deleting.Exists(), deleting.DeletionRequestedAt)
	}
	if _, again := fold(deleting, DeleteCronJob{Propagation: PropagateForeground}); len(again) != 0 {
		t.Errorf("a second foreground delete records %v", again)
	}
	if gone, _ := fold(deleting, FinishDeletion[CronJobSpec, CronJobStatus]{}); gone.Exists() {
		t.Error("finished, the CronJob is still there")
	}
	if _, none := fold(c, FinishDeletion[CronJobSpec, CronJobStatus]{}); len(none) != 0 {
		t.Errorf("finishing a CronJob not being deleted records %v", none)
	}
	orphaned, _ := fold(c, DeleteCronJob{Propagation: PropagateOrphan})
	if orphaned.Exists() || !orphaned.Orphan || orphaned.UID != "u" {
		t.Errorf("orphaning: exists %v, orphan %v, uid %q", orphaned.Exists(), orphaned.Orphan, orphaned.UID)
	}
	if gone, _ := fold(c, DeleteCronJob{}); gone.Exists() || gone.Orphan {
		t.Errorf("in the background: exists %v, orphan %v", gone.Exists(), gone.Orphan)
	}
}

func TestCronJobCreateDefaultsAndRecords(t *testing.T) {
	spec := sampleCronJobSpec()
	spec.ConcurrencyPolicy = ""
	evs, err := DecideObject[CronJob](CronJob{}, CreateCronJob{Meta: ObjectMeta{Namespace: "default", Name: "tick", UID: "u"}, Spec: spec}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	c := EvolveObject(CronJob{}, evs[0])
	if c.Spec.ConcurrencyPolicy != CronJobAllow || c.Generation != 1 || !c.Exists() {
		t.Errorf("created %+v, want policy Allow, generation 1", c)
	}
	// A warning moves the version and nothing else.
	w, err := DecideObject[CronJob](c, WarnCronJob{Reason: CronJobTooManyMissedTimes, Message: "m"}, at(2))
	if err != nil {
		t.Fatal(err)
	}
	if after := EvolveObject(c, w[0]); after.Version != c.Version+1 || !cmp.Equal(after.Spec, c.Spec) {
		t.Errorf("after a warning: %+v", after)
	}
}

func TestCronJobValidationNamesTheField(t *testing.T) {
	long := strings.Repeat("a", 53)
	for _, tc := range []struct {
		name  string
		meta  ObjectMeta
		edit  func(*CronJobSpec)
		field string
	}{
		{"no schedule", ObjectMeta{}, func(s *CronJobSpec) { s.Schedule = "" }, "spec.schedule"},
		{"TZ in the schedule", ObjectMeta{}, func(s *CronJobSpec) { s.Schedule = "TZ=UTC * * * * *" }, "spec.schedule"},
		{"an empty time zone", ObjectMeta{}, func(s *CronJobSpec) { tz := ""; s.TimeZone = &tz }, "spec.timeZone"},
		{"a time zone of odd characters", ObjectMeta{}, func(s *CronJobSpec) { tz := "Europe/Par is"; s.TimeZone = &tz }, "spec.timeZone"},
		{"the server's own zone", ObjectMeta{}, func(s *CronJobSpec) { tz := "Local"; s.TimeZone = &tz }, "spec.timeZone"},
		{"a negative deadline", ObjectMeta{}, func(s *CronJobSpec) { d := int64(-1); s.StartingDeadlineSeconds = &d }, "spec.startingDeadlineSeconds"},
		{"an unknown policy", ObjectMeta{}, func(s *CronJobSpec) { s.ConcurrencyPolicy = "Sometimes" }, "spec.concurrencyPolicy"},
		{"a negative history", ObjectMeta{}, func(s *CronJobSpec) { s.FailedJobsHistoryLimit = -1 }, "spec.failedJobsHistoryLimit"},
		{"a selector", ObjectMeta{}, func(s *CronJobSpec) {
			s.JobTemplate.Spec.Selector = LabelSelector{MatchLabels: map[string]string{"a": "b"}}
		}, "spec.jobTemplate.spec.selector"},
		{"pods that never end", ObjectMeta{}, func(s *CronJobSpec) { s.JobTemplate.Spec.Template.Spec.RestartPolicy = RestartAlways }, "spec.jobTemplate.spec.template.spec.restartPolicy"},
		{"a name too long for its Jobs", ObjectMeta{Name: long}, func(*CronJobSpec) {}, "metadata.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := sampleCronJobSpec()
			tc.edit(&spec)
			meta := tc.meta
			meta.Namespace = "default"
			if meta.Name == "" {
				meta.Name = "tick"
			}
			_, err := DecideObject[CronJob](CronJob{}, CreateCronJob{Meta: meta, Spec: spec}, at(1))
			var inv *InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("err = %v, want an InvalidError", err)
			}
			if inv.Fields[0].Field != tc.field {
				t.Errorf("fields %+v, want %s first", inv.Fields, tc.field)
			}
		})
	}
}

func TestCronJobUpdateSuspendIsANewGeneration(t *testing.T) {
	c := EvolveObject(CronJob{}, sampleCronJobEvents()[0])
	c.ResourceVersion = 7
	spec := c.Spec
	spec.Suspend = true
	evs, err := DecideObject[CronJob](c, Precondition[CronJobCommand]{ResourceVersion: 7, Command: UpdateCronJob{Spec: spec}}, at(2))
	if err != nil {
		t.Fatal(err)
	}
	if u := EvolveObject(c, evs[0]); !u.Spec.Suspend || u.Generation != 2 {
		t.Errorf("after update %+v", u)
	}
	if _, err := DecideObject[CronJob](c, Precondition[CronJobCommand]{ResourceVersion: 6, Command: UpdateCronJob{Spec: spec}}, at(2)); !errors.Is(err, ErrConflict) {
		t.Errorf("stale update: %v, want a conflict", err)
	}
}
