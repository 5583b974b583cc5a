package kubelet

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
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
		Owners:    conversions.OwnersFromAPI(p.OwnerReferences),
		CreatedAt: p.CreationTimestamp.UTC(),
		Spec:      conversions.PodSpecFromAPI(p.Spec),
		Status:    conversions.PodStatusFromAPI(p.Status),
	}
	// The pod is on the node this kubelet is, whatever its spec says.
	o.Spec.NodeName = node
	o.Spec.TerminationGracePeriodSeconds = domain.DefaultTerminationGracePeriodSeconds
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g >= 0 {
		o.Spec.TerminationGracePeriodSeconds = *g
	}
	var loops []string
	for _, s := range p.Status.InitContainerStatuses {
		if crashLooping(s) {
			loops = append(loops, "init container "+loopDetail(s))
		}
	}
	for i, s := range p.Status.ContainerStatuses {
		cs := &o.Status.ContainerStatuses[i]
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
	}
	if len(loops) > 0 && o.Status.Reason == "" {
		o.Status.Reason = ReasonCrashLoopBackOff
		o.Status.Message = strings.Join(loops, "; ")
	}
	return o
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
