package domain

import "time"

// PodCreated records that a pod was created through herd's API, defaults applied. A
// pod created with spec.nodeName set is bound at once by a PodScheduled
// that follows.
type PodCreated struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Finalizers  []string          `json:"finalizers,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        PodSpec           `json:"spec"`
	At          time.Time         `json:"at"`
}

// PodScheduled records that the pod was bound to a node.
type PodScheduled struct {
	NodeName string    `json:"nodeName"`
	At       time.Time `json:"at"`
}

// PodUnschedulable records that no node fits the pod; Message counts why.
type PodUnschedulable struct {
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// PodStatusUpdated records that the node's runtime (or a client through the status
// subresource) reported the pod's status. It carries the whole status;
// herd dates condition transitions itself.
type PodStatusUpdated struct {
	Status PodStatus `json:"status"`
	At     time.Time `json:"at"`
}

// PodMetadataChanged records that labels, annotations or finalizers were replaced.
type PodMetadataChanged struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Finalizers  []string          `json:"finalizers,omitempty"`
	At          time.Time         `json:"at"`
}

// PodOwnersChanged records that the pod's owner references were replaced:
// a controller adopted it (AdoptPod) or released it (ReleasePod). Owners
// is the whole list afterwards.
type PodOwnersChanged struct {
	Owners []OwnerReference `json:"owners,omitempty"`
	At     time.Time        `json:"at"`
}

// PodDisruptionTargeted records that the pod is about to be evicted; Reason says by
// whom (DeletionByTaintManager, EvictionByEvictionAPI, DeletionByPodGC).
type PodDisruptionTargeted struct {
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// PodDeletionRequested records that deletion was asked for, or an earlier deadline
// was shortened. Deadline is At plus the grace period.
type PodDeletionRequested struct {
	GracePeriodSeconds int64     `json:"gracePeriodSeconds"`
	Deadline           time.Time `json:"deadline"`
	At                 time.Time `json:"at"`
}

// PodShutdownRequested records that the node's runtime was asked to stop the pod.
type PodShutdownRequested struct {
	At time.Time `json:"at"`
}

// PodHalted records that the grace period ran out before the pod stopped, so it was
// stopped at once.
type PodHalted struct {
	At time.Time `json:"at"`
}

// PodStopped records that the node's runtime reports that the pod no longer runs.
type PodStopped struct {
	At time.Time `json:"at"`
}

// PodDeprovisioned records that the runtime's resources for the pod are gone.
type PodDeprovisioned struct {
	At time.Time `json:"at"`
}

// PodFinalized records that the pod left the fleet. Watchers see it DELETED.
type PodFinalized struct {
	// Reason is why: "Terminated", "NeverScheduled", "Finished",
	// DeletionByPodGC, or "Vanished" for an observed pod its kubelet no
	// longer lists.
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// PodObserved records that a kubelet reported a pod herd only watches, or a change to
// it. It carries the pod as the kubelet sees it.
type PodObserved struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	CreatedAt   time.Time         `json:"createdAt"`
	Spec        PodSpec           `json:"spec"`
	Status      PodStatus         `json:"status"`
	At          time.Time         `json:"at"`
}

// EventType implements Event.
func (PodCreated) EventType() string { return "PodCreated" }

// EventType implements Event.
func (PodScheduled) EventType() string { return "PodScheduled" }

// EventType implements Event.
func (PodUnschedulable) EventType() string { return "PodUnschedulable" }

// EventType implements Event.
func (PodStatusUpdated) EventType() string { return "PodStatusUpdated" }

// EventType implements Event.
func (PodMetadataChanged) EventType() string { return "PodMetadataChanged" }

// EventType implements Event.
func (PodOwnersChanged) EventType() string { return "PodOwnersChanged" }

// EventType implements Event.
func (PodDisruptionTargeted) EventType() string { return "PodDisruptionTargeted" }

// EventType implements Event.
func (PodDeletionRequested) EventType() string { return "PodDeletionRequested" }

// EventType implements Event.
func (PodShutdownRequested) EventType() string { return "PodShutdownRequested" }

// EventType implements Event.
func (PodHalted) EventType() string { return "PodHalted" }

// EventType implements Event.
func (PodStopped) EventType() string { return "PodStopped" }

// EventType implements Event.
func (PodDeprovisioned) EventType() string { return "PodDeprovisioned" }

// EventType implements Event.
func (PodFinalized) EventType() string { return "PodFinalized" }

// EventType implements Event.
func (PodObserved) EventType() string { return "PodObserved" }

// PodAggregate is the pod in the log: streams "pod/NAMESPACE/NAME" and the
// events they hold, with their schema versions.
var PodAggregate = defineNamespacedAggregate("pod",
	eventOf[PodCreated](1),
	eventOf[PodObserved](1),
	eventOf[PodScheduled](1),
	eventOf[PodUnschedulable](1),
	eventOf[PodStatusUpdated](1),
	eventOf[PodMarkedNotReady](1),
	eventOf[PodMetadataChanged](1),
	eventOf[PodOwnersChanged](1),
	eventOf[PodDisruptionTargeted](1),
	eventOf[PodDeletionRequested](1),
	eventOf[PodShutdownRequested](1),
	eventOf[PodHalted](1),
	eventOf[PodStopped](1),
	eventOf[PodDeprovisioned](1),
	eventOf[PodIPAssigned](1),
	eventOf[PodIPUnavailable](1),
	eventOf[PodFinalized](1),
)
