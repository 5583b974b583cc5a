package kubelet

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"herd/domain"
)

// crashLoopRestarts is the restart count above which a container that
// last terminated counts as crash-looping even while the kubelet shows it
// running between two crashes: by then its back-off has doubled past a
// minute.
const crashLoopRestarts = 3

// ReasonCrashLoopBackOff is the kubelet's waiting reason for a container
// it keeps restarting; herd gives it to a crash-looping pod too.
const ReasonCrashLoopBackOff = "CrashLoopBackOff"

// decodePods reads a kubelet's /pods body, a core/v1 PodList.
func decodePods(body []byte) (corev1.PodList, error) {
	var l corev1.PodList
	if err := json.Unmarshal(body, &l); err != nil {
		return corev1.PodList{}, fmt.Errorf("decode /pods: %w", err)
	}
	return l, nil
}

// ObservedPods maps a kubelet's pod list and its failed probes to one
// domain.ObservePod per pod, sorted by namespace and name, every pod on
// node. Every field of the list may be missing; a pod without a name is
// skipped, as nothing could refer to it, and one without a namespace is
// in "default", as the API server would have put it.
//
// A container that restarted more than three times and last terminated is
// crash-looping whatever state it shows now: the pod's reason becomes
// CrashLoopBackOff (unless the kubelet gave one, such as Evicted) with a
// message naming the container, its restarts and its last exit, and a
// waiting container without a reason gets CrashLoopBackOff as its own.
func ObservedPods(node string, l corev1.PodList, probes probeFailures) []domain.ObservePod {
	out := make([]domain.ObservePod, 0, len(l.Items))
	for _, p := range l.Items {
		if p.Name == "" {
			continue
		}
		out = append(out, observedPod(node, p, probes))
	}
	slices.SortFunc(out, func(a, b domain.ObservePod) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out
}

func observedPod(node string, p corev1.Pod, probes probeFailures) domain.ObservePod {
	o := domain.ObservePod{
		Namespace: p.Namespace, Name: p.Name, UID: string(p.UID),
		Labels: p.Labels, Annotations: p.Annotations,
		CreatedAt: p.CreationTimestamp.UTC(),
		Spec: domain.PodSpec{
			NodeName: node, NodeSelector: p.Spec.NodeSelector,
			TerminationGracePeriodSeconds: domain.DefaultTerminationGracePeriodSeconds,
		},
		Status: domain.PodStatus{
			Phase: domain.PodPhase(p.Status.Phase), PodIP: p.Status.PodIP, HostIP: p.Status.HostIP,
			Reason: p.Status.Reason, Message: p.Status.Message,
		},
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g >= 0 {
		o.Spec.TerminationGracePeriodSeconds = *g
	}
	for _, ref := range p.OwnerReferences {
		o.Owners = append(o.Owners, domain.OwnerReference{
			APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: string(ref.UID),
			Controller: ref.Controller != nil && *ref.Controller,
		})
	}
	for _, t := range p.Spec.Tolerations {
		o.Spec.Tolerations = append(o.Spec.Tolerations, domain.Toleration{
			Key: t.Key, Operator: string(t.Operator), Value: t.Value,
			Effect: domain.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds,
		})
	}
	for _, c := range p.Spec.Containers {
		o.Spec.Containers = append(o.Spec.Containers, domain.Container{
			Name: c.Name, Image: c.Image, Command: c.Command, Args: c.Args,
			Requests: resources(c.Resources.Requests), Limits: resources(c.Resources.Limits),
		})
	}
	if t := p.Status.StartTime; t != nil {
		o.Status.StartTime = t.UTC()
	}
	for _, c := range p.Status.Conditions {
		o.Status.Conditions = append(o.Status.Conditions, domain.PodCondition{
			Type: domain.PodConditionType(c.Type), Status: domain.ConditionStatus(c.Status),
			Reason: c.Reason, Message: c.Message,
		})
	}
	var loops []string
	for _, s := range p.Status.InitContainerStatuses {
		if crashLooping(s) {
			loops = append(loops, "init container "+loopDetail(s))
		}
	}
	for _, s := range p.Status.ContainerStatuses {
		cs := containerStatus(s)
		for _, pc := range probes[containerRef{Namespace: o.Namespace, Pod: p.Name, Container: s.Name}] {
			if pc.PodUID == "" || pc.PodUID == string(p.UID) {
				cs.ProbeFailures += pc.Failed
			}
		}
		if crashLooping(s) {
			loops = append(loops, "container "+loopDetail(s))
			if w := cs.State.Waiting; w != nil && w.Reason == "" {
				w.Reason = ReasonCrashLoopBackOff
			}
		}
		o.Status.ContainerStatuses = append(o.Status.ContainerStatuses, cs)
	}
	if len(loops) > 0 && o.Status.Reason == "" {
		o.Status.Reason = ReasonCrashLoopBackOff
		o.Status.Message = strings.Join(loops, "; ")
	}
	return o
}

// containerStatus maps one container's status; times in UTC.
func containerStatus(s corev1.ContainerStatus) domain.ContainerStatus {
	return domain.ContainerStatus{
		Name: s.Name, Image: s.Image, Ready: s.Ready, RestartCount: s.RestartCount,
		State: containerState(s.State), LastState: containerState(s.LastTerminationState),
	}
}

func containerState(s corev1.ContainerState) domain.ContainerState {
	var out domain.ContainerState
	if w := s.Waiting; w != nil {
		out.Waiting = &domain.ContainerWaiting{Reason: w.Reason, Message: w.Message}
	}
	if r := s.Running; r != nil {
		out.Running = &domain.ContainerRunning{StartedAt: r.StartedAt.UTC()}
	}
	if t := s.Terminated; t != nil {
		out.Terminated = &domain.ContainerTerminated{
			ExitCode: t.ExitCode, Reason: t.Reason, Message: t.Message,
			StartedAt: t.StartedAt.UTC(), FinishedAt: t.FinishedAt.UTC(),
		}
	}
	return out
}

// crashLooping is the kubelet backing off the container's restarts, or
// more than three restarts with a terminated last state.
func crashLooping(s corev1.ContainerStatus) bool {
	if w := s.State.Waiting; w != nil && w.Reason == ReasonCrashLoopBackOff {
		return true
	}
	return s.RestartCount > crashLoopRestarts && s.LastTerminationState.Terminated != nil
}

// loopDetail names a crash-looping container, its restarts and last exit.
func loopDetail(s corev1.ContainerStatus) string {
	msg := fmt.Sprintf("%s restarted %d times", s.Name, s.RestartCount)
	if t := s.LastTerminationState.Terminated; t != nil {
		msg += fmt.Sprintf(", last exit code %d", t.ExitCode)
		if t.Reason != "" {
			msg += " (" + t.Reason + ")"
		}
	}
	return msg
}

// resources converts Kubernetes quantities to herd's base units: CPU in
// millicores, the rest in plain units.
func resources(in corev1.ResourceList) domain.ResourceList {
	if len(in) == 0 {
		return nil
	}
	out := domain.ResourceList{}
	for name, q := range in {
		if name == corev1.ResourceCPU {
			out[string(name)] = q.MilliValue()
		} else {
			out[string(name)] = q.Value()
		}
	}
	return out
}
