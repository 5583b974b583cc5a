// Package cronjob is the CronJob reconciler: on herd's clock, it makes
// each CronJob's Jobs at the times of its schedule, as Kubernetes'
// CronJob controller (cronjob_controllerv2.go) does — named after the
// scheduled minute, owned by the CronJob, within the concurrency policy
// and the starting deadline, none while suspended — keeps the status of
// its runs, and deletes the finished Jobs beyond the history limits.
package cronjob

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
)

// kindCronJob is the kind an owner reference names a CronJob by.
const kindCronJob = "CronJob"

// Reader is what the reconciler reads of the CronJobs
// (reconcilers.Reader): the one of a key, and every one on resync.
type Reader = reconcilers.Reader[domain.CronJob]

// JobLister is what the reconciler reads of the Jobs: those of one
// namespace, among which a CronJob's own.
type JobLister interface {
	List(ctx context.Context, namespace string) ([]domain.Job, int64, error)
}

// Reconciler is the CronJob reconciler. Its keys are CronJobs; its
// resync looks at every one.
type Reconciler struct {
	reconcilers.Kind[domain.CronJob]
	cronJobs Reader
	jobs     JobLister
	cronCmds domain.Executor[domain.CronJob, domain.CronJobCommand]
	jobCmds  domain.Executor[domain.Job, domain.JobCommand]
	owners   *reconcilers.OwnerIndex
	clock    clock.PassiveClock
	newUID   func() string
	log      *zap.Logger

	mu sync.Mutex
	// warned is, by CronJob and reason, the scheduled time last warned
	// of: a warning is recorded once for a run, not at every resync.
	warned map[string]time.Time
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// DefaultResyncPeriod is how often every CronJob is looked at without
// an event: how a lost event heals.
const DefaultResyncPeriod = 30 * time.Second

// New returns the CronJob reconciler; clk is the clock its schedules
// are read on.
func New(cronJobs Reader, jobs JobLister, cronCmds domain.Executor[domain.CronJob, domain.CronJobCommand],
	jobCmds domain.Executor[domain.Job, domain.JobCommand], clk clock.PassiveClock, log *zap.Logger) *Reconciler {
	return &Reconciler{Kind: reconcilers.NewKind("cronjob", domain.CronJobAggregate, DefaultResyncPeriod, cronJobs), cronJobs: cronJobs, jobs: jobs, cronCmds: cronCmds, jobCmds: jobCmds,
		owners: reconcilers.NewOwnerIndex(kindCronJob), clock: clk, newUID: uuid.NewString, log: log.Named("cronjob"),
		warned: map[string]time.Time{}}
}

// Watches implements reconcilers.Reconciler: CronJobs, but the status
// and warnings the reconciler records itself, and the Jobs each
// controls, but their pods' counts (a Job's end is its status). A change
// of labels or annotations alone reaches it from neither: a CronJob's
// runs are its spec's, and its Jobs are its by their owner references,
// not their labels, as Kubernetes' controller finds them.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.CronJobAggregate, domain.CronJobStatusRecorded{}, domain.CronJobWarned{}, domain.CronJobMetadataChanged{}).
		Owns(domain.JobAggregate, r.owners, domain.JobDeleted{}, domain.JobPodsCounted{}, domain.JobMetadataChanged{})
}

// Reconcile brings one CronJob's runs up to its schedule at the clock's
// now, and asks to come back at its next time. A CronJob that is gone
// leaves its Jobs to the garbage collector.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = r.Acting(ctx)
	c, err := r.cronJobs.Last(ctx, key.Namespace, key.Name)
	if errors.Is(err, domain.ErrNotFound) || (err == nil && (!c.Exists() || c.DeletionRequestedAt != nil)) {
		// Gone, or being deleted in the foreground: its Jobs are the
		// garbage collector's, and no new one is made.
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("get cronjob %s: %w", key, err)
	}
	all, _, err := r.jobs.List(ctx, c.Namespace)
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("list jobs of namespace %s: %w", c.Namespace, err)
	}
	var owned []domain.Job
	for _, j := range all {
		r.owners.Observe(j.Key(), j.Owners)
		if controlledBy(j, c) {
			owned = append(owned, j)
		}
	}
	status := domain.CronJob{Status: c.Status}.Clone().Status
	trackRuns(&status, owned)
	// A run is made, and a warning recorded, for what the CronJob asks
	// (its schedule, its policy, its suspension), at the time the clock
	// says: the CronJob's last change of spec is what the decision read.
	spec := reconcilers.SpecChange(c.Stream(), c.Version, domain.CronJobCreated{}, domain.CronJobChanged{})
	sctx, err := reconcilers.BecauseOf(ctx, spec)
	if err != nil {
		return reconcilers.Result{}, err
	}
	res, err := r.schedule(sctx, c, &status, owned)
	if err != nil {
		return res, err
	}
	// The status and the history kept follow the Jobs as well: they name
	// the newest of that change and of the Jobs' own changes by others
	// (one finishing), as a status counted over pods does.
	jctx, err := runsCause(ctx, owned, spec)
	if err != nil {
		return res, err
	}
	if err := r.cleanup(jctx, c, &status, owned); err != nil {
		return res, err
	}
	// Not conditional on the version read: a warning of this reconcile
	// moved it, and the reconciler is the status's one writer.
	if _, err := r.cronCmds.Execute(jctx, c.Key(), domain.RecordCronJobStatus{Status: status}); err != nil {
		return res, fmt.Errorf("record status of cronjob %s: %w", c.Key(), err)
	}
	return res, nil
}

// jobChanges are a Job's changes that move what its CronJob's status
// says of it (active, finished, gone) and which of its finished Jobs it
// keeps: all but its pods' counts.
var jobChanges = []string{domain.JobCreated{}.EventType(), domain.JobChanged{}.EventType(), domain.JobStatusRecorded{}.EventType(),
	domain.JobOwnersChanged{}.EventType(), domain.JobDeletionRequested{}.EventType()}

// runsCause is ctx whose commands name the newest of spec and of each
// owned Job's last change of jobChanges by another than the reconciler
// (a Job it made itself follows spec, which is named then); ctx as it
// is when the log holds none.
func runsCause(ctx context.Context, owned []domain.Job, spec reconcilers.Change) (context.Context, error) {
	best, _, err := reconcilers.LastChange(ctx, spec)
	if err != nil {
		return ctx, err
	}
	for _, j := range owned {
		rec, ok, err := reconcilers.LastChange(ctx, reconcilers.Change{Stream: domain.JobStream(j.Namespace, j.Name), UpTo: j.Version, Types: jobChanges, Others: true})
		if err != nil {
			return ctx, err
		}
		if ok {
			best, _ = reconcilers.Newest(best, rec)
		}
	}
	if best.ID == "" {
		return ctx, nil
	}
	return reconcilers.Because(ctx, best), nil
}

// schedule makes the run that is due, if one is and the CronJob allows
// it, and says when to come back. owned are the CronJob's Jobs.
func (r *Reconciler) schedule(ctx context.Context, c domain.CronJob, status *domain.CronJobStatus, owned []domain.Job) (reconcilers.Result, error) {
	if c.Spec.Suspend {
		return reconcilers.Result{}, nil
	}
	sched, err := parseSchedule(c)
	if err != nil {
		// The API refuses such a schedule; only a log written by another
		// herd could hold one. Nothing to retry until it changes.
		r.log.Warn("cronjob with an unparseable schedule", zap.Stringer("cronjob", c.Key()), zap.Error(err))
		return reconcilers.Result{}, nil
	}
	now := r.clock.Now()
	withStatus := c
	withStatus.Status = *status
	_, scheduled, missed, err := mostRecent(withStatus, now, sched, true)
	if err != nil {
		r.log.Warn("cronjob with a schedule that never comes", zap.Stringer("cronjob", c.Key()), zap.Error(err))
		return reconcilers.Result{}, nil
	}
	come := func() reconcilers.Result {
		return reconcilers.Result{RequeueAfter: nextAfter(withStatus, now, sched)}
	}
	if scheduled == nil {
		return come(), nil
	}
	if missed > tooManyMissed {
		if err := r.warn(ctx, c, *scheduled, domain.CronJobTooManyMissedTimes,
			"too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"); err != nil {
			return reconcilers.Result{}, err
		}
	}
	if d := c.Spec.StartingDeadlineSeconds; d != nil && scheduled.Add(time.Duration(*d)*time.Second).Before(now) {
		return come(), r.warn(ctx, c, *scheduled, domain.CronJobMissSchedule, "Missed scheduled time to start a job: "+scheduled.UTC().Format(time.RFC1123Z))
	}
	name := jobName(c.Name, *scheduled)
	if slices.ContainsFunc(status.Active, func(a domain.CronJobActiveJob) bool { return a.Name == name }) ||
		(status.LastScheduleTime != nil && status.LastScheduleTime.Equal(*scheduled)) {
		return come(), nil
	}
	switch {
	case c.Spec.ConcurrencyPolicy == domain.CronJobForbid && len(status.Active) > 0:
		r.log.Info("not starting a job: an earlier one is active and the concurrency policy is Forbid",
			zap.Stringer("cronjob", c.Key()), zap.Time("scheduled", *scheduled))
		return come(), nil
	case c.Spec.ConcurrencyPolicy == domain.CronJobReplace:
		for _, a := range status.Active {
			if err := r.deleteJob(ctx, c, a.Name); err != nil {
				return reconcilers.Result{}, err
			}
		}
		status.Active = nil
	}
	uid := r.newUID()
	if _, err := r.jobCmds.Execute(ctx, domain.Key{Namespace: c.Namespace, Name: name}, jobFor(c, name, uid, *scheduled)); err != nil {
		if !errors.Is(err, domain.ErrAlreadyExists) {
			return reconcilers.Result{}, fmt.Errorf("create job %s of cronjob %s: %w", name, c.Key(), err)
		}
		// Made already: by an earlier reconcile whose status was not
		// recorded when it is this CronJob's (then it is this run), by
		// another when not (then it is left alone), as Kubernetes'
		// controller decides.
		i := slices.IndexFunc(owned, func(j domain.Job) bool { return j.Name == name })
		if i < 0 {
			r.log.Info("the job of this run exists and is not this cronjob's", zap.Stringer("cronjob", c.Key()), zap.String("job", name))
			return come(), nil
		}
		r.log.Info("the job of this run exists", zap.Stringer("cronjob", c.Key()), zap.String("job", name))
		uid = owned[i].UID
	} else {
		r.log.Info("created job", zap.Stringer("cronjob", c.Key()), zap.String("job", name))
	}
	status.Active = append(status.Active, domain.CronJobActiveJob{Name: name, UID: uid})
	t := scheduled.UTC()
	status.LastScheduleTime = &t
	withStatus.Status = *status
	return come(), nil
}

// jobName is the name of the Job a CronJob makes for the run scheduled
// at t: the CronJob's name and the minutes since the epoch, as
// Kubernetes' controller names it (getJobName), so that a run is made
// once however often it is decided.
func jobName(cronJob string, t time.Time) string {
	return cronJob + "-" + strconv.FormatInt(t.Unix()/60, 10)
}

// jobFor is the Job of the CronJob's run scheduled at t, as Kubernetes'
// getJobFromTemplate2 makes it: the template's labels and annotations,
// the scheduled time among them, and the CronJob as its controller.
func jobFor(c domain.CronJob, name, uid string, t time.Time) domain.CreateJob {
	tmpl := domain.CronJob{Spec: c.Spec}.Clone().Spec.JobTemplate
	annotations := tmpl.Annotations
	if annotations == nil {
		annotations = map[string]string{}
	}
	at := t
	if tz := c.Spec.TimeZone; tz != nil {
		if loc, err := time.LoadLocation(*tz); err == nil {
			at = t.In(loc)
		}
	}
	annotations[domain.CronJobScheduledAnnotation] = at.Format(time.RFC3339)
	return domain.CreateJob{
		Meta: domain.ObjectMeta{
			Namespace: c.Namespace, Name: name, UID: uid, Labels: tmpl.Labels, Annotations: annotations,
			Owners: []domain.OwnerReference{{APIVersion: "batch/v1", Kind: kindCronJob, Name: c.Name, UID: c.UID, Controller: true, BlockOwnerDeletion: true}},
		},
		Spec: tmpl.Spec,
	}
}

// trackRuns brings the active list up to the Jobs as they are, as
// Kubernetes' controller does: a finished Job leaves it, a Job that is
// gone leaves it, and the newest completion of any of the CronJob's Jobs
// is the last successful time. An unfinished Job of the CronJob's that
// the list does not name (one made by hand with kubectl create job
// --from=cronjob/NAME) does not join it, so the concurrency policy
// neither waits for it nor replaces it (Kubernetes' controller warns
// UnexpectedJob and leaves it out); the history limits count it once it
// has finished. A run the reconciler made but did not record joins the
// list when its time is decided again (schedule).
func trackRuns(status *domain.CronJobStatus, owned []domain.Job) {
	byUID := map[string]domain.Job{}
	for _, j := range owned {
		byUID[j.UID] = j
		if done, complete := finished(j); done && complete && !j.Status.CompletionTime.IsZero() {
			if t := j.Status.CompletionTime.UTC(); status.LastSuccessfulTime == nil || t.After(*status.LastSuccessfulTime) {
				status.LastSuccessfulTime = &t
			}
		}
	}
	status.Active = slices.DeleteFunc(status.Active, func(a domain.CronJobActiveJob) bool {
		j, ok := byUID[a.UID]
		if !ok {
			return true
		}
		done, _ := finished(j)
		return done
	})
	if len(status.Active) == 0 {
		status.Active = nil
	}
}

// cleanup deletes the finished Jobs of each outcome beyond the
// CronJob's history limits, those that started first first.
func (r *Reconciler) cleanup(ctx context.Context, c domain.CronJob, status *domain.CronJobStatus, owned []domain.Job) error {
	var succeeded, failed []domain.Job
	for _, j := range owned {
		if done, complete := finished(j); done && complete {
			succeeded = append(succeeded, j)
		} else if done {
			failed = append(failed, j)
		}
	}
	for _, h := range []struct {
		jobs  []domain.Job
		limit int32
	}{{succeeded, c.Spec.SuccessfulJobsHistoryLimit}, {failed, c.Spec.FailedJobsHistoryLimit}} {
		extra := len(h.jobs) - int(h.limit)
		if extra <= 0 {
			continue
		}
		slices.SortFunc(h.jobs, byStartTime)
		for _, j := range h.jobs[:extra] {
			if err := r.deleteJob(ctx, c, j.Name); err != nil {
				return err
			}
			status.Active = slices.DeleteFunc(status.Active, func(a domain.CronJobActiveJob) bool { return a.UID == j.UID })
		}
	}
	return nil
}

// byStartTime orders Jobs as Kubernetes' byJobStartTime: by start time,
// those not started last, then by name.
func byStartTime(a, b domain.Job) int {
	as, bs := a.Status.StartTime, b.Status.StartTime
	switch {
	case as.IsZero() != bs.IsZero():
		if as.IsZero() {
			return 1
		}
		return -1
	case !as.Equal(bs):
		return as.Compare(bs)
	}
	switch {
	case a.Name < b.Name:
		return -1
	case a.Name > b.Name:
		return 1
	}
	return 0
}

// deleteJob deletes a Job of the CronJob, its pods after it (the
// background propagation Kubernetes' controller asks for); one already
// gone is no error.
func (r *Reconciler) deleteJob(ctx context.Context, c domain.CronJob, name string) error {
	_, err := r.jobCmds.Execute(ctx, domain.Key{Namespace: c.Namespace, Name: name}, domain.DeleteJob{Propagation: domain.PropagateBackground})
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("delete job %s of cronjob %s: %w", name, c.Key(), err)
	}
	r.log.Info("deleted job", zap.Stringer("cronjob", c.Key()), zap.String("job", name))
	return nil
}

// warn records a warning about the CronJob's run scheduled at t, once.
func (r *Reconciler) warn(ctx context.Context, c domain.CronJob, t time.Time, reason, message string) error {
	key := c.UID + "/" + reason
	r.mu.Lock()
	last, seen := r.warned[key]
	r.mu.Unlock()
	if seen && last.Equal(t) {
		return nil
	}
	r.log.Warn(message, zap.Stringer("cronjob", c.Key()), zap.String("reason", reason))
	if _, err := r.cronCmds.Execute(ctx, c.Key(), domain.WarnCronJob{Reason: reason, Message: message}); err != nil {
		return fmt.Errorf("warn of cronjob %s: %w", c.Key(), err)
	}
	r.mu.Lock()
	r.warned[key] = t
	r.mu.Unlock()
	return nil
}

// finished reports whether the Job has finished, and whether it
// completed (else it failed): a Complete or Failed condition that holds.
func finished(j domain.Job) (done, complete bool) {
	for _, cond := range j.Status.Conditions {
		if cond.Status != domain.ConditionTrue {
			continue
		}
		switch cond.Type {
		case domain.JobComplete:
			return true, true
		case domain.JobFailed:
			return true, false
		}
	}
	return false, false
}

// controlledBy reports whether the CronJob controls the Job.
func controlledBy(j domain.Job, c domain.CronJob) bool {
	return slices.ContainsFunc(j.Owners, func(o domain.OwnerReference) bool {
		return o.Controller && o.Kind == kindCronJob && o.UID == c.UID
	})
}

// Params are what the fx module builds the reconciler from.
type Params struct {
	fx.In

	CronJobs    Reader
	Jobs        JobLister
	CronJobCmds domain.Executor[domain.CronJob, domain.CronJobCommand]
	JobCmds     domain.Executor[domain.Job, domain.JobCommand]
	Clock       clock.Clock
	Logger      *zap.Logger
}

// Module adds the CronJob reconciler to the reconcilers' value group,
// under the name "cronjob" that --reconcilers switches.
var Module = fx.Module("cronjob", reconcilers.Provide(func(p Params) *Reconciler {
	return New(p.CronJobs, p.Jobs, p.CronJobCmds, p.JobCmds, p.Clock, p.Logger)
}))
