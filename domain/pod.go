package domain

import (
	"encoding/json"
	"time"
)

// PodPhase is where a pod is in its life, as in Kubernetes. "Terminating"
// is not a phase: it is how kubectl shows a pod with a deletion timestamp.
type PodPhase string

// The pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
)

// PodConditionType names a pod condition, as Kubernetes does.
type PodConditionType string

// The pod conditions herd sets.
const (
	// PodConditionScheduled is True once the pod is bound to a node; False
	// with reason Unschedulable while no node fits.
	PodConditionScheduled PodConditionType = "PodScheduled"
	// PodConditionReady is True while the pod serves.
	PodConditionReady PodConditionType = "Ready"
	// PodConditionDisruptionTarget is True once the pod is about to be
	// evicted, with the reason naming who evicts it.
	PodConditionDisruptionTarget PodConditionType = "DisruptionTarget"
)

// Reasons herd gives on pod conditions, under Kubernetes' names.
const (
	ReasonUnschedulable          = "Unschedulable"
	ReasonDeletionByTaintManager = "DeletionByTaintManager"
	ReasonEvictionByEvictionAPI  = "EvictionByEvictionAPI"
	ReasonDeletionByPodGC        = "DeletionByPodGC"
)

// DefaultTerminationGracePeriodSeconds is Kubernetes' default grace period.
const DefaultTerminationGracePeriodSeconds int64 = 30

// DefaultTolerationSeconds is how long a pod stays on a not-ready or
// unreachable node by default: Kubernetes' DefaultTolerationSeconds
// admission plugin adds 300 s tolerations for both.
const DefaultTolerationSeconds int64 = 300

// PodSource says who owns a pod's life.
type PodSource string

// The pod sources.
const (
	// SourceHerd: created through herd's API; herd schedules, evicts and
	// terminates it.
	SourceHerd PodSource = ""
	// SourceKubelet: observed on a kubelet; the kubelet owns it and herd
	// only records what it reports.
	SourceKubelet PodSource = "kubelet"
)

// Pod is the pod aggregate. The pod view stores it as its row, so it is
// also the aggregate's snapshot.
type Pod struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Finalizers  []string          `json:"finalizers,omitempty"`
	// Owners are the objects the pod belongs to, as Kubernetes'
	// ownerReferences; kubectl drain evicts a pod only when one of them is
	// its controller (or with --force).
	Owners    []OwnerReference `json:"owners,omitempty"`
	CreatedAt time.Time        `json:"createdAt"`
	// Source is who owns the pod's life: herd, or an observed kubelet.
	Source PodSource `json:"source,omitempty"`

	Spec   PodSpec   `json:"spec"`
	Status PodStatus `json:"status"`

	// Deletion is set once deletion was requested; its presence is what
	// kubectl shows as Terminating.
	Deletion *PodDeletion `json:"deletion,omitempty"`

	// Network is the address IPAM gave the pod; nil until it has one.
	Network *PodNetwork `json:"network,omitempty"`

	// Finalized marks a pod that has left the fleet. The view keeps the row
	// as a tombstone so that the stream version survives a later pod of
	// the same name; lists and gets never show it.
	Finalized bool `json:"finalized,omitempty"`

	// Version is the number of events in the pod's stream.
	Version int64 `json:"version"`
	// ResourceVersion is the global log position of the last event that
	// touched the pod. Set by the projection.
	ResourceVersion int64 `json:"resourceVersion"`
}

// OwnerReference names an object another belongs to (its owner): the
// garbage collector deletes the object once every owner it names is gone.
type OwnerReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Controller bool   `json:"controller,omitempty"`
	// BlockOwnerDeletion keeps an owner deleted in the foreground until
	// this object is gone, as Kubernetes' blockOwnerDeletion does.
	BlockOwnerDeletion bool `json:"blockOwnerDeletion,omitempty"`
}

// PodSpec is what the pod asks for.
type PodSpec struct {
	NodeName     string            `json:"nodeName,omitempty"`
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	Tolerations  []Toleration      `json:"tolerations,omitempty"`
	Containers   []Container       `json:"containers,omitempty"`
	// TerminationGracePeriodSeconds is how long the pod gets to shut down
	// before it is halted; 30 unless the pod says otherwise.
	TerminationGracePeriodSeconds int64 `json:"terminationGracePeriodSeconds"`
	// RestartPolicy says what becomes of a container that ends by itself:
	// restarted always (RestartAlways, also when empty), only when it
	// failed (RestartOnFailure), or never (RestartNever), when the pod
	// ends Succeeded or Failed with it. A Job's pods say OnFailure or
	// Never.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// Zone is what an illumos host needs to run the pod as a zone.
	Zone *ZoneSpec `json:"zone,omitempty"`
	// Unmodeled is the rest of the pod spec the client wrote, which herd
	// keeps and shows but does not act on (volumes, init containers,
	// security contexts, …), as a JSON object in the API's terms; nil
	// when there is none. It is part of what a template says, so changing
	// it rolls a workload's pods as any other change does.
	Unmodeled json.RawMessage `json:"unmodeled,omitempty"`
}

// Container is one container of a pod. Requests and Limits are in base
// units (millicores, bytes), like ResourceList everywhere in the domain.
type Container struct {
	Name     string       `json:"name"`
	Image    string       `json:"image,omitempty"`
	Command  []string     `json:"command,omitempty"`
	Args     []string     `json:"args,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
	Limits   ResourceList `json:"limits,omitempty"`
	// Unmodeled is the rest of the container the client wrote (its
	// environment, ports, probes, volume mounts, …), kept and shown but
	// not acted on, as PodSpec.Unmodeled.
	Unmodeled json.RawMessage `json:"unmodeled,omitempty"`
}

// RestartPolicy is a pod's restart policy, as Kubernetes spells it.
type RestartPolicy string

// The restart policies. A pod that names none restarts always, and herd
// keeps it as "" so that pods stored before restart policies read back
// the same.
const (
	RestartAlways    RestartPolicy = "Always"
	RestartOnFailure RestartPolicy = "OnFailure"
	RestartNever     RestartPolicy = "Never"
)

// Restarts reports whether a container that ended with exitCode is
// started again under the policy.
func (r RestartPolicy) Restarts(exitCode int32) bool {
	switch r {
	case RestartNever:
		return false
	case RestartOnFailure:
		return exitCode != 0
	}
	return true
}

// ZoneSpec is herd's extension for pods that run as illumos zones.
type ZoneSpec struct {
	// Brand is the zone brand: "lx", "sparse", or a custom one.
	Brand string `json:"brand,omitempty"`
	// Image is the image the brand installs from (lx needs one).
	Image string `json:"image,omitempty"`
	// Volumes are datasets mounted into the zone.
	Volumes []ZoneVolume `json:"volumes,omitempty"`
}

// ZoneVolume is a dataset mounted into a zone.
type ZoneVolume struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	// Persistent volumes outlive their pod.
	Persistent bool `json:"persistent,omitempty"`
	// SizeBytes is the dataset's quota; 0 for none.
	SizeBytes int64 `json:"sizeBytes,omitempty"`
}

// Toleration lets a pod stay on, or be placed on, a node with a matching
// taint, by Kubernetes' rules (see Tolerates).
type Toleration struct {
	Key string `json:"key,omitempty"`
	// Operator is "Exists" or "Equal" (the default when empty).
	Operator string      `json:"operator,omitempty"`
	Value    string      `json:"value,omitempty"`
	Effect   TaintEffect `json:"effect,omitempty"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated;
	// nil tolerates it for ever.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// The toleration operators.
const (
	TolerationOpExists = "Exists"
	TolerationOpEqual  = "Equal"
)

// PodStatus is what is known about the pod's running state.
type PodStatus struct {
	Phase      PodPhase       `json:"phase"`
	Conditions []PodCondition `json:"conditions,omitempty"`
	PodIP      string         `json:"podIP,omitempty"`
	HostIP     string         `json:"hostIP,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Message    string         `json:"message,omitempty"`
	// StartTime is when the node accepted the pod; zero before.
	StartTime         time.Time         `json:"startTime"`
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
}

// PodCondition is one aspect of a pod's state. LastTransitionTime comes
// from herd's clock and moves only when Status changes.
type PodCondition struct {
	Type               PodConditionType `json:"type"`
	Status             ConditionStatus  `json:"status"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
	LastTransitionTime time.Time        `json:"lastTransitionTime"`
}

// Restarts is how often the pod's containers have restarted, together.
func (s PodStatus) Restarts() int32 {
	var n int32
	for _, cs := range s.ContainerStatuses {
		n += cs.RestartCount
	}
	return n
}

// ContainerStatus is the state of one container, as a runtime or kubelet
// reports it.
type ContainerStatus struct {
	Name         string         `json:"name"`
	Image        string         `json:"image,omitempty"`
	Ready        bool           `json:"ready"`
	RestartCount int32          `json:"restartCount"`
	State        ContainerState `json:"state"`
	LastState    ContainerState `json:"lastState"`
	// ProbeFailures counts failed liveness, readiness and startup probes,
	// when the kubelet reports them.
	ProbeFailures int64 `json:"probeFailures,omitempty"`
}

// ContainerState is one of waiting, running or terminated; at most one is
// set.
type ContainerState struct {
	Waiting    *ContainerWaiting    `json:"waiting,omitempty"`
	Running    *ContainerRunning    `json:"running,omitempty"`
	Terminated *ContainerTerminated `json:"terminated,omitempty"`
}

// ContainerWaiting describes a container that is not running yet, or again.
type ContainerWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerRunning describes a container that runs.
type ContainerRunning struct {
	StartedAt time.Time `json:"startedAt"`
}

// ContainerTerminated describes a container that ended.
type ContainerTerminated struct {
	ExitCode   int32     `json:"exitCode"`
	Reason     string    `json:"reason,omitempty"`
	Message    string    `json:"message,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
}

// PodDeletion is a pod's way out: requested, then shut down (or halted when
// the grace period ran out), deprovisioned, finalized.
type PodDeletion struct {
	// RequestedAt is the deletion timestamp.
	RequestedAt time.Time `json:"requestedAt"`
	// GracePeriodSeconds is the grace period in force.
	GracePeriodSeconds int64 `json:"gracePeriodSeconds"`
	// Deadline is when the grace period runs out and the pod is halted.
	Deadline time.Time `json:"deadline"`
	// ShutdownRequestedAt is when the runtime was asked to stop the pod.
	ShutdownRequestedAt time.Time `json:"shutdownRequestedAt"`
	// HaltedAt is when the pod was halted because its grace period ran
	// out; zero when it shut down in time.
	HaltedAt time.Time `json:"haltedAt"`
	// StoppedAt is when the pod's runtime reported it stopped.
	StoppedAt time.Time `json:"stoppedAt"`
	// DeprovisionedAt is when the runtime's resources were removed.
	DeprovisionedAt time.Time `json:"deprovisionedAt"`
}

// Exists reports whether the pod was created and not finalized.
func (p Pod) Exists() bool { return p.Version > 0 && !p.Finalized }

// Terminating reports whether deletion was requested.
func (p Pod) Terminating() bool { return p.Deletion != nil }

// Finished reports whether the pod ran to an end (Succeeded or Failed).
func (p Pod) Finished() bool {
	return p.Status.Phase == PodSucceeded || p.Status.Phase == PodFailed
}

// Observed reports whether the pod belongs to a kubelet herd only watches.
func (p Pod) Observed() bool { return p.Source == SourceKubelet }

// Condition returns the pod's condition of type t and whether it has one.
func (p Pod) Condition(t PodConditionType) (PodCondition, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return PodCondition{}, false
}

// Requests sums the resource requests of every container.
func (p Pod) Requests() ResourceList {
	out := ResourceList{}
	for _, c := range p.Spec.Containers {
		for k, v := range c.Requests {
			out[k] += v
		}
	}
	return out
}

// Limits sums the resource limits of every container.
func (p Pod) Limits() ResourceList {
	out := ResourceList{}
	for _, c := range p.Spec.Containers {
		for k, v := range c.Limits {
			out[k] += v
		}
	}
	return out
}

// Key is "namespace/name".
func (p Pod) Key() string { return p.Namespace + "/" + p.Name }

// OwnerReferences returns the pod's owners, so that a workload on the
// object model can tell whether it owns the pod (Dependent).
func (p Pod) OwnerReferences() []OwnerReference { return p.Owners }

// PodStream is the name of the log stream that holds a pod's events.
func PodStream(namespace, name string) string { return PodAggregate.Stream(namespace + "/" + name) }
