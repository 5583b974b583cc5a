package httpapi

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"herd/domain"
)

// The components that report pods' events, as Kubernetes names its own
// where herd plays the same part.
const (
	componentScheduler     = "default-scheduler"
	componentNode          = "node-controller"
	componentTaintEviction = "taint-eviction-controller"
	componentEviction      = "herd-eviction"
	componentRuntime       = "herd-runtime"
	componentIPAM          = "herd-ipam"
	componentHerd          = "herd"
)

// podEvent is one Kubernetes Event a pod's log record stands for.
type podEvent struct {
	reason, typ, component, message string
	// fieldPath names the container the event is about
	// (spec.containers{NAME}), as the kubelet's events do.
	fieldPath string
}

// podEvents maps one event of a pod's stream to the Kubernetes Events it
// stands for, given the pod before (prev) and after (cur) it. This is the
// one place that says which pod events an operator sees, and in which
// words:
//
//	PodScheduled           Normal  Scheduled              default-scheduler  Successfully assigned NS/POD to NODE
//	PodUnschedulable       Warning FailedScheduling       default-scheduler  the scheduler's message
//	PodIPAssigned          Normal  AddressAssigned        herd-ipam          the address and its pool
//	PodIPUnavailable       Warning FailedCreatePodSandBox herd-ipam          why no pool had an address
//	PodStatusUpdated,      Normal  Started                herd-runtime       Started container X (each container that came up)
//	PodObserved            Warning BackOff / Failed       herd-runtime       a container waiting to restart or failing to start
//	                       Warning <status reason>        herd-runtime       the pod failed (StartFailed, RuntimeVanished, ...)
//	PodMarkedNotReady      Warning NodeNotReady           node-controller    Node is not ready
//	PodDisruptionTargeted  Normal  TaintManagerEviction   taint-eviction-... Marking for deletion Pod NS/POD
//	                       Warning Evicted                herd-eviction      the pod is evicted (a drain, the eviction API)
//	PodDeletionRequested   Normal  Killing                herd-runtime       Stopping container X (a pod that runs on a node)
//	PodHalted              Warning ExceededGracePeriod    herd-runtime       the grace period ran out
//	PodStopped             Normal  Stopped                herd-runtime       the runtime no longer runs the pod
//
// Creation, metadata changes, deprovisioning and finalization are no
// Events in Kubernetes either: the pod's own fields show them.
func podEvents(prev, cur domain.Pod, ev domain.Event) []podEvent {
	ref := cur.Namespace + "/" + cur.Name
	one := func(reason, typ, component, msg string) []podEvent {
		return []podEvent{{reason: reason, typ: typ, component: component, message: msg}}
	}
	const normal, warning = corev1.EventTypeNormal, corev1.EventTypeWarning
	switch e := ev.(type) {
	case domain.PodScheduled:
		return one("Scheduled", normal, componentScheduler, fmt.Sprintf("Successfully assigned %s to %s", ref, e.NodeName))
	case domain.PodUnschedulable:
		return one("FailedScheduling", warning, componentScheduler, e.Message)
	case domain.PodIPAssigned:
		return one("AddressAssigned", normal, componentIPAM, fmt.Sprintf("Assigned address %s/%d from pool %s", e.Network.IP, e.Network.PrefixLength, e.Network.Pool))
	case domain.PodIPUnavailable:
		return one("FailedCreatePodSandBox", warning, componentIPAM, "No address for the pod: "+e.Message)
	case domain.PodStatusUpdated, domain.PodObserved:
		return statusEvents(prev, cur)
	case domain.PodMarkedNotReady:
		return one("NodeNotReady", warning, componentNode, "Node is not ready")
	case domain.PodDisruptionTargeted:
		switch e.Reason {
		case domain.ReasonDeletionByTaintManager:
			return one("TaintManagerEviction", normal, componentTaintEviction, "Marking for deletion Pod "+ref)
		case domain.ReasonEvictionByEvictionAPI:
			return one("Evicted", warning, componentEviction, fmt.Sprintf("Evicting pod %s from node %s: %s", ref, cur.Spec.NodeName, e.Message))
		}
		return one(e.Reason, warning, componentHerd, e.Message)
	case domain.PodDeletionRequested:
		// The runtime stops a pod that was running on a node, once: a
		// second deletion only shortens the deadline.
		if prev.Terminating() || prev.Spec.NodeName == "" || prev.Finished() {
			return nil
		}
		return perContainer(cur, "Killing", normal, func(c string) string { return "Stopping container " + c })
	case domain.PodHalted:
		return one("ExceededGracePeriod", warning, componentRuntime,
			fmt.Sprintf("The pod did not stop within its grace period of %d s and was stopped at once", podGracePeriod(cur)))
	case domain.PodStopped:
		return one("Stopped", normal, componentRuntime, fmt.Sprintf("Pod %s no longer runs on node %s", ref, cur.Spec.NodeName))
	}
	return nil
}

// podGracePeriod is the grace period in force for a pod being deleted.
func podGracePeriod(p domain.Pod) int64 {
	if p.Deletion != nil {
		return p.Deletion.GracePeriodSeconds
	}
	return p.Spec.TerminationGracePeriodSeconds
}

// perContainer is one event for each of the pod's containers, or one for
// the pod when it has none (a zone).
func perContainer(p domain.Pod, reason, typ string, msg func(container string) string) []podEvent {
	if len(p.Spec.Containers) == 0 {
		return []podEvent{{reason: reason, typ: typ, component: componentRuntime, message: msg("of pod " + p.Namespace + "/" + p.Name)}}
	}
	out := make([]podEvent, len(p.Spec.Containers))
	for i, c := range p.Spec.Containers {
		out[i] = podEvent{reason: reason, typ: typ, component: componentRuntime, message: msg(c.Name), fieldPath: containerPath(c.Name)}
	}
	return out
}

func containerPath(name string) string { return "spec.containers{" + name + "}" }

// statusEvents are what a new status says happened: containers that came
// up or are stuck, and the pod failing, as the kubelet reports them.
func statusEvents(prev, cur domain.Pod) []podEvent {
	var out []podEvent
	was := map[string]domain.ContainerStatus{}
	for _, c := range prev.Status.ContainerStatuses {
		was[c.Name] = c
	}
	for _, c := range cur.Status.ContainerStatuses {
		before := was[c.Name]
		switch st := c.State; {
		case st.Running != nil && (before.State.Running == nil || !before.State.Running.StartedAt.Equal(st.Running.StartedAt)):
			out = append(out, podEvent{reason: "Started", typ: corev1.EventTypeNormal, component: componentRuntime,
				message: "Started container " + c.Name, fieldPath: containerPath(c.Name)})
		case st.Waiting != nil && st.Waiting.Reason != "" && (before.State.Waiting == nil || before.State.Waiting.Reason != st.Waiting.Reason):
			if e, ok := waitingEvent(c); ok {
				out = append(out, e)
			}
		}
	}
	if len(cur.Spec.Containers) == 0 && len(cur.Status.ContainerStatuses) == 0 &&
		cur.Status.Phase == domain.PodRunning && prev.Status.Phase != domain.PodRunning {
		out = append(out, podEvent{reason: "Started", typ: corev1.EventTypeNormal, component: componentRuntime,
			message: fmt.Sprintf("Started pod %s/%s on node %s", cur.Namespace, cur.Name, cur.Spec.NodeName)})
	}
	if cur.Status.Phase == domain.PodFailed && prev.Status.Phase != domain.PodFailed {
		reason := cur.Status.Reason
		if reason == "" {
			reason = "Failed"
		}
		msg := cur.Status.Message
		if msg == "" {
			msg = "The pod failed"
		}
		out = append(out, podEvent{reason: reason, typ: corev1.EventTypeWarning, component: componentRuntime, message: msg})
	}
	return out
}

// waitingEvent is the kubelet's event for a container that waits: BackOff
// while it waits to be restarted or for its image, Failed otherwise; none
// while it is only being created.
func waitingEvent(c domain.ContainerStatus) (podEvent, bool) {
	w := c.State.Waiting
	e := podEvent{reason: "Failed", typ: corev1.EventTypeWarning, component: componentRuntime, fieldPath: containerPath(c.Name)}
	switch w.Reason {
	case "ContainerCreating", "PodInitializing":
		return podEvent{}, false
	case "CrashLoopBackOff":
		e.reason, e.message = "BackOff", "Back-off restarting failed container "+c.Name
	case "ImagePullBackOff":
		e.reason, e.typ, e.message = "BackOff", corev1.EventTypeNormal, fmt.Sprintf("Back-off pulling image %q", c.Image)
	default:
		e.message = "Error: " + w.Reason
		if w.Message != "" {
			e.message += ": " + w.Message
		}
	}
	return e, true
}
