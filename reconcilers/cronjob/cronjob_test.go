package cronjob

import (
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// t0 is a whole minute, a time of every schedule of these tests.
var t0 = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

type (
	fakeCronJobs = reconcilerstest.Store[domain.CronJob, domain.CronJobCommand]
	fakeJobs     = reconcilerstest.Store[domain.Job, domain.JobCommand]
)

var (
	_ Reader    = (*fakeCronJobs)(nil)
	_ JobLister = (*fakeJobs)(nil)
)

// fixture is the reconciler on fakes and a fake clock, and the CronJob
// default/tick created at t0.
type fixture struct {
	r     *Reconciler
	crons *fakeCronJobs
	jobs  *fakeJobs
	clock *clocktesting.FakeClock
}

func newFixture(t *testing.T, change func(*domain.CronJobSpec)) *fixture {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	f := &fixture{clock: clk,
		crons: reconcilerstest.NewStore(clk.Now, domain.DecideObject[domain.CronJob], func(c domain.CronJob, ev domain.Event) domain.CronJob {
			c = domain.EvolveObject(c, ev)
			c.ResourceVersion++
			return c
		}),
		jobs: reconcilerstest.NewStore(clk.Now, domain.DecideJob, func(j domain.Job, ev domain.Event) domain.Job {
			j = domain.EvolveJob(j, ev)
			j.ResourceVersion++
			return j
		}),
	}
	spec := domain.CronJobSpec{Schedule: "*/5 * * * *", ConcurrencyPolicy: domain.CronJobAllow,
		SuccessfulJobsHistoryLimit: 3, FailedJobsHistoryLimit: 1,
		JobTemplate: domain.JobTemplate{Labels: map[string]string{"app": "tick"}, Spec: domain.JobSpec{Parallelism: 1, BackoffLimit: 6,
			Template: domain.PodTemplate{Spec: domain.PodSpec{RestartPolicy: domain.RestartOnFailure, Containers: []domain.Container{{Name: "tick", Image: "busybox"}}}}}}}
	if change != nil {
		change(&spec)
	}
	if _, err := f.crons.Execute(t.Context(), domain.Key{Namespace: "default", Name: "tick"},
		domain.CreateCronJob{Meta: domain.ObjectMeta{Namespace: "default", Name: "tick", UID: "uid-tick"}, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	f.r = New(f.crons, f.jobs, f.crons, f.jobs, clk, zap.NewNop())
	n := 0
	f.r.newUID = func() string { n++; return "uid-job-" + string(rune('0'+n)) }
	return f
}

// reconcile reconciles default/tick and returns when it asked to come back.
func (f *fixture) reconcile(t *testing.T) time.Duration {
	t.Helper()
	res, err := f.r.Reconcile(t.Context(), reconcilers.Key{Aggregate: domain.CronJobAggregate, Namespace: "default", Name: "tick"})
	if err != nil {
		t.Fatal(err)
	}
	return res.RequeueAfter
}

// advance moves the clock by d and reconciles.
func (f *fixture) advance(t *testing.T, d time.Duration) time.Duration {
	t.Helper()
	f.clock.Step(d)
	return f.reconcile(t)
}

func (f *fixture) cronJob() domain.CronJob {
	return f.crons.Objects[domain.Key{Namespace: "default", Name: "tick"}]
}

// jobNames are the Jobs that exist, by name.
func (f *fixture) jobNames() []string {
	var out []string
	for k, j := range f.jobs.Objects {
		if j.Exists() {
			out = append(out, k.Name)
		}
	}
	slices.Sort(out)
	return out
}

// jobAt is the name of the Job of the run at t0 plus d.
func jobAt(d time.Duration) string { return jobName("tick", t0.Add(d)) }

// finish ends the Job with Complete (or Failed), started at its time.
func (f *fixture) finish(t *testing.T, name string, complete bool) {
	t.Helper()
	typ := domain.JobComplete
	if !complete {
		typ = domain.JobFailed
	}
	now := f.clock.Now()
	st := domain.JobStatus{StartTime: f.jobs.Objects[domain.Key{Namespace: "default", Name: name}].CreatedAt,
		Conditions: []domain.JobCondition{{Type: typ, Status: domain.ConditionTrue, LastTransitionTime: now}}}
	if complete {
		st.CompletionTime = now
	}
	if _, err := f.jobs.Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.RecordJobStatus{Status: st}); err != nil {
		t.Fatal(err)
	}
}

func equalNames(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("jobs %v, want %v", got, want)
	}
}

// TestEveryFiveMinutesAJob: a Job at each time of the schedule, on the
// clock, named after its minute, owned by the CronJob and annotated with
// its time; the reconciler asks to come back at the next time.
func TestEveryFiveMinutesAJob(t *testing.T) {
	f := newFixture(t, nil)
	if after := f.reconcile(t); after != 5*time.Minute || len(f.jobNames()) != 0 {
		t.Fatalf("at creation: come back after %s, jobs %v", after, f.jobNames())
	}
	if after := f.advance(t, 4*time.Minute+59*time.Second); len(f.jobNames()) != 0 || after != time.Second {
		t.Fatalf("a second early: jobs %v, come back after %s", f.jobNames(), after)
	}
	if after := f.advance(t, time.Second); after != 5*time.Minute {
		t.Errorf("come back after %s", after)
	}
	equalNames(t, f.jobNames(), jobAt(5*time.Minute))
	j := f.jobs.Objects[domain.Key{Namespace: "default", Name: jobAt(5 * time.Minute)}]
	if o := j.Owners; len(o) != 1 || o[0].Kind != "CronJob" || o[0].UID != "uid-tick" || !o[0].Controller {
		t.Errorf("owners %+v", o)
	}
	if a := j.Annotations[domain.CronJobScheduledAnnotation]; a != "2026-11-27T09:05:00Z" || j.Labels["app"] != "tick" {
		t.Errorf("annotations %v labels %v", j.Annotations, j.Labels)
	}
	st := f.cronJob().Status
	if len(st.Active) != 1 || st.Active[0].Name != jobAt(5*time.Minute) || !st.LastScheduleTime.Equal(t0.Add(5*time.Minute)) {
		t.Errorf("status %+v", st)
	}
	f.reconcile(t) // again at the same time: nothing more
	f.advance(t, 5*time.Minute)
	equalNames(t, f.jobNames(), jobAt(5*time.Minute), jobAt(10*time.Minute))
	if n := len(f.cronJob().Status.Active); n != 2 {
		t.Errorf("%d active, want both (Allow)", n)
	}
}

// TestForbidSkipsWhileOneRuns: with Forbid, no Job starts while one is
// active; once it has completed, the last successful time is its
// completion and the next time makes the next Job.
func TestForbidSkipsWhileOneRuns(t *testing.T) {
	f := newFixture(t, func(s *domain.CronJobSpec) {
		s.ConcurrencyPolicy = domain.CronJobForbid
		d := int64(60)
		s.StartingDeadlineSeconds = &d
	})
	f.advance(t, 5*time.Minute)
	f.advance(t, 5*time.Minute)
	equalNames(t, f.jobNames(), jobAt(5*time.Minute))
	f.clock.Step(2 * time.Minute)
	f.finish(t, jobAt(5*time.Minute), true)
	f.reconcile(t)
	st := f.cronJob().Status
	if len(st.Active) != 0 || st.LastSuccessfulTime == nil || !st.LastSuccessfulTime.Equal(t0.Add(12*time.Minute)) {
		t.Errorf("status %+v", st)
	}
	equalNames(t, f.jobNames(), jobAt(5*time.Minute)) // 09:10 is past its deadline
	f.advance(t, 3*time.Minute)
	equalNames(t, f.jobNames(), jobAt(5*time.Minute), jobAt(15*time.Minute))
}

// TestReplaceDeletesTheActiveJob: with Replace, the next time deletes
// the Job still active and makes the new one.
func TestReplaceDeletesTheActiveJob(t *testing.T) {
	f := newFixture(t, func(s *domain.CronJobSpec) { s.ConcurrencyPolicy = domain.CronJobReplace })
	f.advance(t, 5*time.Minute)
	f.advance(t, 5*time.Minute)
	equalNames(t, f.jobNames(), jobAt(10*time.Minute))
	if st := f.cronJob().Status; len(st.Active) != 1 || st.Active[0].Name != jobAt(10*time.Minute) {
		t.Errorf("active %+v", st.Active)
	}
}

// TestSuspendStopsIt: a suspended CronJob makes no Job and asks for no
// wake-up; resumed, it makes the latest run only.
func TestSuspendStopsIt(t *testing.T) {
	f := newFixture(t, func(s *domain.CronJobSpec) { s.Suspend = true })
	if after := f.advance(t, 20*time.Minute); after != 0 || len(f.jobNames()) != 0 {
		t.Fatalf("suspended: come back after %s, jobs %v", after, f.jobNames())
	}
	c := f.cronJob()
	spec := c.Spec
	spec.Suspend = false
	if _, err := f.crons.Execute(t.Context(), c.Key(), domain.UpdateCronJob{Spec: spec}); err != nil {
		t.Fatal(err)
	}
	f.reconcile(t)
	equalNames(t, f.jobNames(), jobAt(20*time.Minute))
}

// TestHistoryKeepsTheNewest: of the finished Jobs, the newest 3
// successful and the newest failed one stay; the older go, oldest first.
func TestHistoryKeepsTheNewest(t *testing.T) {
	f := newFixture(t, nil)
	var made []string
	for i := 1; i <= 6; i++ {
		f.advance(t, 5*time.Minute)
		name := jobAt(time.Duration(i) * 5 * time.Minute)
		made = append(made, name)
		f.finish(t, name, i != 2 && i != 3)
	}
	f.reconcile(t)
	// Succeeded: runs 1, 4, 5 and 6, of which 1 goes; failed: 2 and 3,
	// of which 2 goes.
	equalNames(t, f.jobNames(), made[2], made[3], made[4], made[5])
}

// TestTooManyMissedWarnsAndRunsTheLatest: a CronJob whose last run is
// more than 100 times ago gets a TooManyMissedTimes warning and only
// its latest run.
func TestTooManyMissedWarnsAndRunsTheLatest(t *testing.T) {
	f := newFixture(t, nil)
	f.advance(t, 101*5*time.Minute+time.Minute)
	equalNames(t, f.jobNames(), jobAt(101*5*time.Minute))
	if w := f.crons.Written["default/tick"]; !slices.Contains(w, "CronJobWarned") {
		t.Errorf("events %v, want a warning", w)
	}
	f.reconcile(t)
	if n := countOf(f.crons.Written["default/tick"], "CronJobWarned"); n != 1 {
		t.Errorf("%d warnings, want one", n)
	}
}

// TestStartingDeadlineMissed: a run whose starting deadline has passed
// is not made; the next one, within its deadline, is.
func TestStartingDeadlineMissed(t *testing.T) {
	f := newFixture(t, func(s *domain.CronJobSpec) {
		d := int64(300)
		s.StartingDeadlineSeconds = &d
		s.Schedule = "0 * * * *"
	})
	f.clock.Step(time.Hour + 6*time.Minute)
	f.reconcile(t)
	f.reconcile(t)
	if len(f.jobNames()) != 0 {
		t.Errorf("jobs %v, want none: the run is past its deadline", f.jobNames())
	}
	if n := countOf(f.crons.Written["default/tick"], "CronJobWarned"); n != 0 {
		// The deadline moves the earliest time to consider: 10:01, after
		// which no time has come yet, so there is nothing to warn of.
		t.Errorf("%d warnings", n)
	}
	f.clock.SetTime(t0.Add(2*time.Hour + 4*time.Minute))
	f.reconcile(t)
	equalNames(t, f.jobNames(), jobName("tick", t0.Add(2*time.Hour)))
}

// TestTimeZone: "0 9 * * *" in Asia/Tokyo is midnight UTC.
func TestTimeZone(t *testing.T) {
	f := newFixture(t, func(s *domain.CronJobSpec) {
		tz := "Asia/Tokyo"
		s.TimeZone, s.Schedule = &tz, "0 9 * * *"
	})
	midnight := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	if after := f.reconcile(t); after != midnight.Sub(t0) {
		t.Errorf("come back after %s, want at midnight UTC", after)
	}
	f.clock.SetTime(midnight)
	f.reconcile(t)
	name := jobName("tick", midnight)
	equalNames(t, f.jobNames(), name)
	if a := f.jobs.Objects[domain.Key{Namespace: "default", Name: name}].Annotations[domain.CronJobScheduledAnnotation]; a != "2026-11-28T09:00:00+09:00" {
		t.Errorf("scheduled annotation %s", a)
	}
}

// TestWatchesEveryEvent: every event of a CronJob but what it records
// itself reaches it, and every event of a Job it controls but its pods'
// counts.
func TestWatchesEveryEvent(t *testing.T) {
	f := newFixture(t, nil)
	reconcilerstest.WatchesEveryEvent(t, f.r.Watches())
}

func countOf(types []string, typ string) int {
	n := 0
	for _, s := range types {
		if s == typ {
			n++
		}
	}
	return n
}

// TestAJobIsNamedForItsScheduledMinute: a run's Job is the CronJob's
// name and the minutes since the epoch of the time it was scheduled for.
func TestAJobIsNamedForItsScheduledMinute(t *testing.T) {
	at := time.Date(2026, 11, 29, 4, 5, 0, 0, time.UTC)
	if got, want := jobName("tick", at), "tick-29932085"; got != want {
		t.Errorf("name %s, want %s", got, want)
	}
}

// byHand makes the Job name from the CronJob's template, owned by it, as
// kubectl create job --from=cronjob/tick does.
func (f *fixture) byHand(t *testing.T, name string) {
	t.Helper()
	c := f.cronJob()
	create := jobFor(c, name, "uid-"+name, f.clock.Now())
	delete(create.Meta.Annotations, domain.CronJobScheduledAnnotation)
	if _, err := f.jobs.Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, create); err != nil {
		t.Fatal(err)
	}
}

// TestARunByHandIsNotAnActiveRun: a Job an operator made from the
// CronJob is its (deleting the CronJob takes it), but, as in Kubernetes,
// not among its active runs: with Forbid the next time still runs, with
// Replace it is not deleted; its completion is the last successful time
// all the same.
func TestARunByHandIsNotAnActiveRun(t *testing.T) {
	for _, policy := range []string{domain.CronJobForbid, domain.CronJobReplace} {
		t.Run(policy, func(t *testing.T) {
			f := newFixture(t, func(s *domain.CronJobSpec) { s.ConcurrencyPolicy = policy })
			f.advance(t, time.Minute)
			f.byHand(t, "by-hand")
			f.reconcile(t)
			if st := f.cronJob().Status; len(st.Active) != 0 {
				t.Errorf("active %+v, want none: the run by hand is not the CronJob's to count", st.Active)
			}
			f.advance(t, 4*time.Minute)
			equalNames(t, f.jobNames(), "by-hand", jobAt(5*time.Minute))
			if st := f.cronJob().Status; len(st.Active) != 1 || st.Active[0].Name != jobAt(5*time.Minute) {
				t.Errorf("active %+v, want the scheduled run only", st.Active)
			}
			f.clock.Step(time.Minute)
			f.finish(t, "by-hand", true)
			f.reconcile(t)
			if st := f.cronJob().Status; st.LastSuccessfulTime == nil || !st.LastSuccessfulTime.Equal(t0.Add(6*time.Minute)) {
				t.Errorf("last successful time %v, want the run by hand's completion", st.LastSuccessfulTime)
			}
		})
	}
}

// TestARunMadeButNotRecordedJoinsTheActiveRuns: a Job the reconciler made
// for a time whose status it did not record (herd stopped in between) is
// found under its name at that time and taken among the active runs, as
// Kubernetes' controller takes a Job of its own that already exists;
// no second Job is made.
func TestARunMadeButNotRecordedJoinsTheActiveRuns(t *testing.T) {
	f := newFixture(t, func(s *domain.CronJobSpec) { s.ConcurrencyPolicy = domain.CronJobForbid })
	f.clock.Step(5 * time.Minute)
	name := jobAt(5 * time.Minute)
	if _, err := f.jobs.Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, jobFor(f.cronJob(), name, "uid-made", t0.Add(5*time.Minute))); err != nil {
		t.Fatal(err)
	}
	f.reconcile(t)
	equalNames(t, f.jobNames(), name)
	st := f.cronJob().Status
	if len(st.Active) != 1 || st.Active[0].UID != "uid-made" || st.LastScheduleTime == nil || !st.LastScheduleTime.Equal(t0.Add(5*time.Minute)) {
		t.Errorf("status %+v, want the run already made active and its time the last scheduled", st)
	}
}
