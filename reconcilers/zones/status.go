package zones

import (
	"fmt"
	"time"

	"herd/domain"
)

// Reasons the reconciler gives a pod its runtime could not run.
const (
	ReasonProvisionFailed = "ProvisionFailed"
	ReasonStartFailed     = "StartFailed"
	ReasonRuntimeFailed   = "RuntimeFailed"
	ReasonRuntimeStopped  = "RuntimeStopped"
	// ReasonRuntimeVanished: the pod ran, and its runtime no longer holds
	// it (its zone was deleted behind herd's back).
	ReasonRuntimeVanished = "RuntimeVanished"
)

// runningStatus is a pod's status once its runtime runs it: Running, Ready,
// every container running since the pod started.
func runningStatus(p domain.Pod, node domain.Node, st domain.RuntimeStatus) domain.PodStatus {
	out := domain.PodStatus{
		Phase:      domain.PodRunning,
		PodIP:      st.PodIP,
		HostIP:     internalIP(node),
		StartTime:  st.StartedAt,
		Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}},
	}
	for _, c := range p.Spec.Containers {
		out.ContainerStatuses = append(out.ContainerStatuses, domain.ContainerStatus{
			Name: c.Name, Image: c.Image, Ready: true, RestartCount: st.Restarts,
			State: domain.ContainerState{Running: &domain.ContainerRunning{StartedAt: st.StartedAt}},
		})
	}
	if st.Restarts > 0 && p.Status.StartTime.Before(st.StartedAt) && !p.Status.StartTime.IsZero() {
		// A restart: the pod started when it first did.
		out.StartTime = p.Status.StartTime
	}
	return out
}

// readyAgain is the status of a running pod that was marked not ready
// while its node was not Ready, once the node is again: as it was, Ready.
func readyAgain(p domain.Pod) domain.PodStatus {
	out := p.Status
	out.Conditions = []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}
	return out
}

// Reasons Kubernetes gives a pod's Ready condition and its containers
// once they ended, and the one of a container waiting to restart.
const (
	reasonPodCompleted     = "PodCompleted"
	reasonPodFailed        = "PodFailed"
	reasonCompleted        = "Completed"
	reasonError            = "Error"
	reasonCrashLoopBackOff = "CrashLoopBackOff"
)

// exitedStatus is a pod's status once its containers ran to their end
// and its restart policy keeps them ended: Succeeded when they all
// exited 0, else Failed; every container terminated with the pod's exit
// code, as its runtime reports one for all.
func exitedStatus(p domain.Pod, node domain.Node, st domain.RuntimeState) domain.PodStatus {
	out := domain.PodStatus{Phase: domain.PodSucceeded, PodIP: p.Status.PodIP, HostIP: internalIP(node), StartTime: p.Status.StartTime}
	ready, reason := reasonPodCompleted, reasonCompleted
	if st.ExitCode != 0 {
		out.Phase, ready, reason = domain.PodFailed, reasonPodFailed, reasonError
	}
	out.Conditions = []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionFalse, Reason: ready}}
	for _, c := range p.Spec.Containers {
		out.ContainerStatuses = append(out.ContainerStatuses, domain.ContainerStatus{
			Name: c.Name, Image: c.Image, RestartCount: st.Restarts,
			State: domain.ContainerState{Terminated: &domain.ContainerTerminated{
				ExitCode: st.ExitCode, Reason: reason, StartedAt: startedAt(p, c.Name), FinishedAt: st.FinishedAt,
			}},
		})
	}
	return out
}

// backingOffStatus is a pod's status while its containers, which ended,
// wait to restart: Running, not ready, each container waiting in
// CrashLoopBackOff with its last run terminated, as the kubelet shows it.
func backingOffStatus(p domain.Pod, node domain.Node, st domain.RuntimeState) domain.PodStatus {
	out := domain.PodStatus{Phase: domain.PodRunning, PodIP: p.Status.PodIP, HostIP: internalIP(node), StartTime: p.Status.StartTime,
		Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionFalse, Reason: "ContainersNotReady"}}}
	reason := reasonCompleted
	if st.ExitCode != 0 {
		reason = reasonError
	}
	for _, c := range p.Spec.Containers {
		out.ContainerStatuses = append(out.ContainerStatuses, domain.ContainerStatus{
			Name: c.Name, Image: c.Image, RestartCount: st.Restarts,
			State: domain.ContainerState{Waiting: &domain.ContainerWaiting{Reason: reasonCrashLoopBackOff,
				Message: fmt.Sprintf("back-off restarting the container, which exited with code %d", st.ExitCode)}},
			LastState: domain.ContainerState{Terminated: &domain.ContainerTerminated{
				ExitCode: st.ExitCode, Reason: reason, StartedAt: startedAt(p, c.Name), FinishedAt: st.FinishedAt,
			}},
		})
	}
	return out
}

// startedAt is when the pod's container called name last started, as
// its status said; the pod's start time when it says none.
func startedAt(p domain.Pod, name string) time.Time {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == name && cs.State.Running != nil {
			return cs.State.Running.StartedAt
		}
	}
	return p.Status.StartTime
}

// crashLoopBackoff is how long the kubelet waits before it restarts a
// container that ended, after restarts earlier restarts: 10 s, doubled
// each time, at most 5 minutes.
func crashLoopBackoff(restarts int32) time.Duration {
	d := 10 * time.Second
	for i := int32(0); i < restarts && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// failedStatus is a pod's status when its runtime could not run it.
func failedStatus(node domain.Node, reason, message string) domain.PodStatus {
	return domain.PodStatus{
		Phase:      domain.PodFailed,
		HostIP:     internalIP(node),
		Reason:     reason,
		Message:    message,
		Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionFalse, Reason: reason}},
	}
}

// internalIP is the node's InternalIP address, "" if it reported none.
func internalIP(n domain.Node) string {
	for _, a := range n.Addresses {
		if a.Type == "InternalIP" {
			return a.Address
		}
	}
	return ""
}
