package httpapi

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"herd/domain"
	"herd/events"
)

// workloadController is one of herd's workload reconcilers as Kubernetes'
// Events name it: the kind it controls, that kind's apiVersion, the
// reporting component of Kubernetes' own controller, and the source its
// writes carry in the log.
type workloadController struct {
	kind, apiVersion, component, source string
}

// The workload controllers whose Events herd derives. Each source is
// what the reconciler puts in the metadata of what it writes (its
// events.WithMetadata), which tells its writes from an operator's.
var (
	deploymentController  = workloadController{"Deployment", "apps/v1", "deployment-controller", "reconciler/deployment"}
	replicaSetController  = workloadController{"ReplicaSet", "apps/v1", "replicaset-controller", "reconciler/replicaset"}
	daemonSetController   = workloadController{domain.KindDaemonSet, "apps/v1", "daemonset-controller", "reconciler/daemonset"}
	jobController         = workloadController{"Job", "batch/v1", "job-controller", "reconciler/job"}
	statefulSetController = workloadController{"StatefulSet", "apps/v1", "statefulset-controller", "reconciler/statefulset"}
	// podControllers are the controllers that create and delete pods, by
	// the kind they control.
	podControllers = map[string]workloadController{
		replicaSetController.kind: replicaSetController, daemonSetController.kind: daemonSetController, jobController.kind: jobController,
		statefulSetController.kind: statefulSetController,
	}
)

// workloadKinds are the kinds whose Events the workload controllers
// write.
var workloadKinds = map[string]bool{"Deployment": true, "ReplicaSet": true, domain.KindDaemonSet: true, "Job": true, "CronJob": true, "StatefulSet": true}

// workloadEvent is one Event a workload controller writes about the
// workload it controls.
type workloadEvent struct {
	controller           workloadController
	name, uid            string
	reason, typ, message string
}

// derived is the event as the reader serves it: the seq-th of record
// rec, in namespace ns.
func (we workloadEvent) derived(rec events.Record, seq int, ns string) derivedEvent {
	return derivedEvent{
		pos: rec.Position, seq: seq, at: rec.RecordedAt, namespace: ns,
		object: corev1.ObjectReference{
			Kind: we.controller.kind, APIVersion: we.controller.apiVersion, Namespace: ns, Name: we.name, UID: types.UID(we.uid),
		},
		reason: we.reason, typ: we.typ, message: we.message, component: we.controller.component,
	}
}

// podWorkloadEvents are the Events the controller of a pod writes when
// it creates or deletes it, in Kubernetes' words (its PodControl; the
// StatefulSet controller's own, StatefulPodControl, words them as the
// second message):
//
//	PodCreated            Normal SuccessfulCreate Created pod: NAME | create Pod NAME in StatefulSet SET successful
//	PodDeletionRequested  Normal SuccessfulDelete Deleted pod: NAME | delete Pod NAME in StatefulSet SET successful
//
// about the ReplicaSet, DaemonSet, Job or StatefulSet that controls the
// pod, and only when that controller's reconciler wrote it: a pod an
// operator deletes is no controller's Event.
func podWorkloadEvents(prev, cur domain.Pod, ev domain.Event, source string) []workloadEvent {
	ctrl, ok := cur.Controller()
	if !ok {
		ctrl, ok = prev.Controller()
	}
	if !ok {
		return nil
	}
	c, known := podControllers[ctrl.Kind]
	if !known || c.source != source {
		return nil
	}
	one := func(verb string) []workloadEvent {
		msg := verb + "d pod: " + cur.Name
		if c == statefulSetController {
			msg = fmt.Sprintf("%s Pod %s in StatefulSet %s successful", strings.ToLower(verb), cur.Name, ctrl.Name)
		}
		return []workloadEvent{{controller: c, name: ctrl.Name, uid: ctrl.UID, reason: "Successful" + verb, typ: corev1.EventTypeNormal, message: msg}}
	}
	switch ev.(type) {
	case domain.PodCreated:
		return one("Create")
	case domain.PodDeletionRequested:
		if prev.Terminating() {
			return nil
		}
		return one("Delete")
	}
	return nil
}

// replicaSetWorkloadEvents are the Events the Deployment controller
// writes when it creates or scales one of its ReplicaSets, in Kubernetes'
// words:
//
//	ReplicaSetCreated  Normal ScalingReplicaSet Scaled up replica set NAME from 0 to N (N > 0)
//	ReplicaSetChanged  Normal ScalingReplicaSet Scaled up|down replica set NAME from M to N
//
// about the Deployment, when the Deployment's reconciler wrote them.
func replicaSetWorkloadEvents(prev, cur domain.ReplicaSet, ev domain.Event, source string) []workloadEvent {
	if source != deploymentController.source {
		return nil
	}
	var owner *domain.OwnerReference
	for i, o := range cur.Owners {
		if o.Controller && o.Kind == deploymentController.kind {
			owner = &cur.Owners[i]
		}
	}
	if owner == nil {
		return nil
	}
	var from int32
	switch ev.(type) {
	case domain.ReplicaSetCreated:
	case domain.ReplicaSetChanged:
		from = prev.Spec.Replicas
	default:
		return nil
	}
	to := cur.Spec.Replicas
	if from == to {
		return nil
	}
	direction := "up"
	if to < from {
		direction = "down"
	}
	return []workloadEvent{{
		controller: deploymentController, name: owner.Name, uid: owner.UID, reason: "ScalingReplicaSet", typ: corev1.EventTypeNormal,
		message: fmt.Sprintf("Scaled %s replica set %s from %d to %d", direction, cur.Name, from, to),
	}}
}

// jobWorkloadEvents are the Events the Job controller writes of a Job,
// in Kubernetes' words:
//
//	Complete turns true  Normal Completed Job completed
func jobWorkloadEvents(prev, cur domain.Job) []workloadEvent {
	if cur.Status.Is(domain.JobComplete) && !prev.Status.Is(domain.JobComplete) {
		return []workloadEvent{{controller: jobController, name: cur.Name, uid: cur.UID, reason: "Completed", typ: corev1.EventTypeNormal, message: "Job completed"}}
	}
	return nil
}
