package zones

import (
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
			Name: c.Name, Image: c.Image, Ready: true,
			State: domain.ContainerState{Running: &domain.ContainerRunning{StartedAt: st.StartedAt}},
		})
	}
	return out
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
