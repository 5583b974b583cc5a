package httpapi

import (
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
// Warning Event the controller writes of a warning it recorded
// (TooManyMissedTimes, MissSchedule), with its reason and message.
func (r *eventReader) cronJobRecord(rec events.Record, ev domain.Event) ([]derivedEvent, error) {
	prev := r.cronJobs[rec.Stream]
	cur, err := projections.FoldCronJob(prev, rec)
	if err != nil {
		return nil, err
	}
	r.cronJobs[rec.Stream] = cur
	w, ok := ev.(domain.CronJobWarned)
	if !ok {
		return nil, nil
	}
	ns, name := streamKey(domain.CronJobAggregate, rec.Stream)
	we := workloadEvent{controller: cronJobController, name: name, uid: cur.UID, typ: corev1.EventTypeWarning, reason: w.Reason, message: w.Message}
	return []derivedEvent{we.derived(rec, 0, ns)}, nil
}
