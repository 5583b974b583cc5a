package kubelet

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// crashLoopRestarts is the restart count above which a container that
// last terminated counts as crash-looping even before the kubelet says
// CrashLoopBackOff: by then its back-off has doubled past a minute.
const crashLoopRestarts = 3

// ReasonCrashLoopBackOff is the kubelet's waiting reason for a container
// it keeps restarting.
const ReasonCrashLoopBackOff = "CrashLoopBackOff"

// ObservedPod is a pod as its kubelet reports it. Observed pods belong to
// their kubelet: herd records what it sees and never schedules, evicts or
// terminates them.
type ObservedPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid,omitempty"`
	// Node is the node whose kubelet runs the pod.
	Node string `json:"node"`
	// Phase is Pending, Running, Succeeded, Failed or Unknown.
	Phase string `json:"phase,omitempty"`
	// Ready is the pod's Ready condition.
	Ready bool `json:"ready"`
	// Reason and Message explain the phase, such as Evicted.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	PodIP   string `json:"podIP,omitempty"`
	HostIP  string `json:"hostIP,omitempty"`
	// StartedAt is when the kubelet acknowledged the pod; zero if unknown.
	StartedAt time.Time `json:"startedAt,omitzero"`
	// Containers are the init containers (Init true) and then the app
	// containers, in the pod's order.
	Containers []ObservedContainer `json:"containers,omitempty"`
}

// ObservedContainer is one container of an observed pod.
type ObservedContainer struct {
	Name  string `json:"name"`
	Image string `json:"image,omitempty"`
	Init  bool   `json:"init,omitempty"`
	// State is Waiting, Running or Terminated; empty when the kubelet has
	// no status for the container yet.
	State string `json:"state,omitempty"`
	// Reason and Message explain a Waiting or Terminated state:
	// ContainerCreating, ImagePullBackOff, CrashLoopBackOff, Error,
	// OOMKilled, Completed, ...
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// ExitCode is set for a terminated container.
	ExitCode *int32 `json:"exitCode,omitempty"`
	Ready    bool   `json:"ready"`
	// RestartCount is how often the kubelet restarted it.
	RestartCount int32 `json:"restartCount"`
	// LastReason and LastExitCode describe its previous termination.
	LastReason   string `json:"lastReason,omitempty"`
	LastExitCode *int32 `json:"lastExitCode,omitempty"`
	// CrashLooping is true when the kubelet backs off restarting it, or
	// it restarted more than three times and last ended terminated.
	CrashLooping bool `json:"crashLooping,omitempty"`
	// ProbeFailures counts failed probes by type (Liveness, Readiness,
	// Startup) since the kubelet started.
	ProbeFailures map[string]int64 `json:"probeFailures,omitempty"`
	// CPUSeconds and MemoryWorkingSetBytes are its resource use from
	// /metrics/resource, nil when not served.
	CPUSeconds            *float64 `json:"cpuSeconds,omitempty"`
	MemoryWorkingSetBytes *int64   `json:"memoryWorkingSetBytes,omitempty"`
}

// decodePods reads a kubelet's /pods body, a core/v1 PodList.
func decodePods(body []byte) (corev1.PodList, error) {
	var l corev1.PodList
	if err := json.Unmarshal(body, &l); err != nil {
		return corev1.PodList{}, fmt.Errorf("decode /pods: %w", err)
	}
	return l, nil
}

// ObservedPods maps a kubelet's pod list, with its probe failures and
// resource use, to herd's observed pods, sorted by namespace and name.
// Every field of the list may be missing; a pod without a name is
// skipped, as nothing could refer to it.
func ObservedPods(node string, l corev1.PodList, probes probeFailures, use usage) []ObservedPod {
	out := make([]ObservedPod, 0, len(l.Items))
	for _, p := range l.Items {
		if p.Name == "" {
			continue
		}
		op := ObservedPod{
			Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Node: node,
			Phase: string(p.Status.Phase), Reason: p.Status.Reason, Message: p.Status.Message,
			PodIP: p.Status.PodIP, HostIP: p.Status.HostIP,
		}
		if op.Namespace == "" {
			op.Namespace = "default"
		}
		if p.Status.StartTime != nil {
			op.StartedAt = p.Status.StartTime.UTC()
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				op.Ready = c.Status == corev1.ConditionTrue
			}
		}
		images := map[string]string{}
		for _, c := range slices.Concat(p.Spec.InitContainers, p.Spec.Containers) {
			images[c.Name] = c.Image
		}
		for _, s := range p.Status.InitContainerStatuses {
			op.Containers = append(op.Containers, observedContainer(op, s, true, images, probes, use))
		}
		for _, s := range p.Status.ContainerStatuses {
			op.Containers = append(op.Containers, observedContainer(op, s, false, images, probes, use))
		}
		out = append(out, op)
	}
	slices.SortFunc(out, func(a, b ObservedPod) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out
}

func observedContainer(p ObservedPod, s corev1.ContainerStatus, init bool, images map[string]string, probes probeFailures, use usage) ObservedContainer {
	c := ObservedContainer{
		Name: s.Name, Image: s.Image, Init: init, Ready: s.Ready, RestartCount: s.RestartCount,
	}
	if c.Image == "" {
		c.Image = images[s.Name]
	}
	switch st := s.State; {
	case st.Waiting != nil:
		c.State, c.Reason, c.Message = "Waiting", st.Waiting.Reason, st.Waiting.Message
	case st.Running != nil:
		c.State = "Running"
	case st.Terminated != nil:
		code := st.Terminated.ExitCode
		c.State, c.Reason, c.Message, c.ExitCode = "Terminated", st.Terminated.Reason, st.Terminated.Message, &code
	}
	if last := s.LastTerminationState.Terminated; last != nil {
		code := last.ExitCode
		c.LastReason, c.LastExitCode = last.Reason, &code
	}
	c.CrashLooping = c.Reason == ReasonCrashLoopBackOff ||
		(s.RestartCount > crashLoopRestarts && s.LastTerminationState.Terminated != nil)
	ref := containerRef{Namespace: p.Namespace, Pod: p.Name, Container: s.Name}
	for _, pc := range probes[ref] {
		if (pc.PodUID == "" || pc.PodUID == p.UID) && pc.Failed > 0 {
			if c.ProbeFailures == nil {
				c.ProbeFailures = map[string]int64{}
			}
			c.ProbeFailures[pc.Probe] += pc.Failed
		}
	}
	if u, ok := use.Containers[ref]; ok {
		cpu := u.CPUSeconds
		mem := int64(math.Round(u.MemoryWorkingSetBytes))
		c.CPUSeconds, c.MemoryWorkingSetBytes = &cpu, &mem
	}
	return c
}
