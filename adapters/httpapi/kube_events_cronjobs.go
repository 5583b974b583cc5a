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

// cronJobJobEvents are the Events the CronJob controller writes when it
// creates or deletes one of its Jobs, in Kubernetes' words:
//
//	JobCreated                       Normal SuccessfulCreate Created job NAME
//	JobDeleted, JobDeletionRequested Normal SuccessfulDelete Deleted job NAME
//
// about the CronJob that controls the Job, and only when the CronJob's
// reconciler wrote it.
func cronJobJobEvents(cur domain.Job, ev domain.Event, source string) []workloadEvent {
	if source != cronJobController.source {
		return nil
	}
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
	switch ev.(type) {
	case domain.JobCreated:
		we.reason, we.message = "SuccessfulCreate", "Created job "+cur.Name
	case domain.JobDeleted, domain.JobDeletionRequested:
		we.reason, we.message = "SuccessfulDelete", "Deleted job "+cur.Name
	default:
		return nil
	}
	return []workloadEvent{we}
}

// cronJobRecord folds one record of a CronJob's stream and returns the
// Events the controller writes of it: a Warning of a warning it recorded
// (TooManyMissedTimes, MissSchedule), with its reason and message, and
// one for each finished Job it took off the active list.
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
		for _, we := range r.sawCompletedJobs(prev, cur, ns, name) {
			out = append(out, we.derived(rec, len(out), ns))
		}
	}
	return out, nil
}

// sawCompletedJobs are the Events the CronJob controller writes as it
// takes a finished Job off the CronJob's active list, in Kubernetes'
// words:
//
//	Normal SawCompletedJob Saw completed job: NAME, condition: Complete (or Failed)
//
// A Job the reader has not seen finish is left unsaid (one gone from
// the list for another reason, or whose events lie before the reader's
// start).
func (r *eventReader) sawCompletedJobs(prev, cur domain.CronJob, ns, name string) []workloadEvent {
	var out []workloadEvent
	for _, a := range prev.Status.Active {
		if slices.ContainsFunc(cur.Status.Active, func(c domain.CronJobActiveJob) bool { return c.UID == a.UID }) {
			continue
		}
		j, ok := r.jobs[domain.JobStream(ns, a.Name)]
		if !ok || j.UID != a.UID || !j.Status.Finished() {
			continue
		}
		condition := domain.JobComplete
		if !j.Status.Is(domain.JobComplete) {
			condition = domain.JobFailed
		}
		out = append(out, workloadEvent{controller: cronJobController, name: name, uid: cur.UID, typ: corev1.EventTypeNormal,
			reason: "SawCompletedJob", message: fmt.Sprintf("Saw completed job: %s, condition: %s", a.Name, condition)})
	}
	return out
}
