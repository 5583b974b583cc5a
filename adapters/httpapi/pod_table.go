package httpapi

import (
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podRows are pods as kubectl get pods prints them; IP and NODE
// show with -o wide, and kubectl adds NAMESPACE itself for -A.
func podRows(s *Server, pods []corev1.Pod, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{
		nameColumn("pod"), column("Ready", "Ready containers of all containers"),
		column("Status", "The phase, a container's reason, or Terminating"), column("Restarts", "Container restarts"),
		ageColumn("the pod was created"), wide("IP", "The pod's IP address"), wide("Node", "The node the pod is bound to"),
		wide("Nominated Node", ""), wide("Readiness Gates", ""),
	}}
	now := s.Clock.Now()
	for i := range pods {
		p := &pods[i]
		ready, total, restarts := podReadiness(p)
		t.cells = append(t.cells, []any{
			p.Name, fmt.Sprintf("%d/%d", ready, total), PodDisplayStatus(p), fmt.Sprint(restarts),
			age(now, p.CreationTimestamp),
			orNone(p.Status.PodIP), orNone(p.Spec.NodeName), "<none>", "<none>",
		})
	}
	return t
}

// podReadiness counts ready containers and restarts. A pod whose runtime
// reports no container statuses (a zone is one container) is ready as a
// whole when its Ready condition is True.
func podReadiness(p *corev1.Pod) (ready, total int, restarts int32) {
	total = len(p.Spec.Containers)
	if len(p.Status.ContainerStatuses) == 0 {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = total
			}
		}
		return ready, total, 0
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Ready {
			ready++
		}
		restarts += cs.RestartCount
	}
	return ready, total, restarts
}

// PodDisplayStatus is kubectl's STATUS column: the pod's reason or phase, a
// container's waiting or terminated reason when there is one, and
// Terminating once deletion was requested.
func PodDisplayStatus(p *corev1.Pod) string {
	reason := string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	for _, cs := range p.Status.ContainerStatuses {
		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
			reason = cs.State.Waiting.Reason
		case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
			reason = cs.State.Terminated.Reason
		case cs.State.Terminated != nil:
			reason = fmt.Sprintf("ExitCode:%d", cs.State.Terminated.ExitCode)
		}
	}
	if p.DeletionTimestamp != nil {
		if p.Status.Reason == "NodeLost" {
			return "Unknown"
		}
		return "Terminating"
	}
	return reason
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
