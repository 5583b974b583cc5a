package httpapi

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// cronJobController is the CronJob reconciler as Kubernetes' Events
// name it.
var cronJobController = workloadController{"CronJob", "batch/v1", "cronjob-controller", "reconciler/cronjob"}

// cronJobJobEvents are the Events the CronJob controller writes of the
// Jobs of a CronJob, in Kubernetes' words, about the CronJob that
// controls the Job. Of those its reconciler created or deleted:
//
//	JobCreated                       Normal SuccessfulCreate Created job NAME
//	JobDeleted, JobDeletionRequested Normal SuccessfulDelete Deleted job NAME
//
// and of one another created with the CronJob as its controller (kubectl
// create job --from=cronjob/NAME makes one), which the controller finds
// unfinished and not among its active runs:
//
//	Warning UnexpectedJob Saw a job that the controller did not create or forgot: NAME
func cronJobJobEvents(cur domain.Job, ev domain.Event, source string) []workloadEvent {
	var owner *domain.OwnerReference
	for i, o := range cur.Owners {
		if o.Controller && o.Kind == cronJobController.kind {
			owner = &cur.Owners[i]
		}
	}
	if owner == nil {
		return nil
	}
	we := workloadEvent{controller: cronJobController, name: owner.Name, uid: owner.UID, typ: corev1.EventTypeNormal}
	_, created := ev.(domain.JobCreated)
	_, deleted := ev.(domain.JobDeleted)
	_, deleting := ev.(domain.JobDeletionRequested)
	mine := source == cronJobController.source
	switch {
	case created && !mine:
		we.typ, we.reason, we.message = corev1.EventTypeWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: "+cur.Name
	case created && mine:
		we.reason, we.message = "SuccessfulCreate", "Created job "+cur.Name
	case (deleted || deleting) && mine:
		we.reason, we.message = "SuccessfulDelete", "Deleted job "+cur.Name
	default:
		return nil
	}
	return []workloadEvent{we}
}

// cronJobRecord folds one record of a CronJob's stream and returns the
// Events the controller writes of it: a Warning of a warning it recorded
// (TooManyMissedTimes, MissSchedule), with its reason and message, and
// one for each Job it took off the active list that finished or went
// missing.
func (r *eventReader) cronJobRecord(rec events.Record, ev domain.Event) ([]derivedEvent, error) {
	prev := r.cronJobs[rec.Stream]
	cur, err := projections.FoldCronJob(prev, rec)
	if err != nil {
		return nil, err
	}
	r.cronJobs[rec.Stream] = cur
	ns, name := streamKey(domain.CronJobAggregate, rec.Stream)
	var out []derivedEvent
	if w, ok := ev.(domain.CronJobWarned); ok {
		we := workloadEvent{controller: cronJobController, name: name, uid: cur.UID, typ: corev1.EventTypeWarning, reason: w.Reason, message: w.Message}
		out = append(out, we.derived(rec, len(out), ns))
	}
	if rec.Metadata.Source == cronJobController.source {
		for _, we := range r.activeJobsGone(prev, cur, ns, name) {
			out = append(out, we.derived(rec, len(out), ns))
		}
	}
	if cur.Deleted {
		delete(r.cronJobs, rec.Stream)
	}
	// A deleted Job that this CronJob no longer lists, nor any other, is
	// needed no more.
	for _, a := range prev.Status.Active {
		stream := domain.JobStream(ns, a.Name)
		if j, ok := r.jobs[stream]; ok && j.UID == a.UID && j.Deleted && !r.activeInACronJob(j) {
			r.forgetJob(stream, j.UID)
		}
	}
	return out, nil
}

// activeJobsGone are the Events the CronJob controller writes as it
// takes a Job off the CronJob's active list, in Kubernetes' words:
//
//	the Job finished      Normal SawCompletedJob Saw completed job: NAME, condition: Complete (or Failed)
//	someone else deleted  Normal MissingJob      Active job went missing: NAME
//
// A Job the CronJob's reconciler deleted itself (a Replace, a history
// limit) says nothing here (its SuccessfulDelete says it), nor does one
// whose events lie before the reader's start.
func (r *eventReader) activeJobsGone(prev, cur domain.CronJob, ns, name string) []workloadEvent {
	var out []workloadEvent
	for _, a := range prev.Status.Active {
		if slices.ContainsFunc(cur.Status.Active, func(c domain.CronJobActiveJob) bool { return c.UID == a.UID }) {
			continue
		}
		j, ok := r.jobs[domain.JobStream(ns, a.Name)]
		if !ok || j.UID != a.UID {
			continue
		}
		we := workloadEvent{controller: cronJobController, name: name, uid: cur.UID, typ: corev1.EventTypeNormal}
		switch {
		case j.Status.Finished():
			condition := domain.JobComplete
			if !j.Status.Is(domain.JobComplete) {
				condition = domain.JobFailed
			}
			we.reason, we.message = "SawCompletedJob", fmt.Sprintf("Saw completed job: %s, condition: %s", a.Name, condition)
		case !j.Exists() && !r.cronJobDeleted[j.UID]:
			we.reason, we.message = "MissingJob", "Active job went missing: "+a.Name
		default:
			continue
		}
		out = append(out, we)
	}
	return out
}
