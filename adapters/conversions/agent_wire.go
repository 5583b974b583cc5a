package conversions

import (
	"fmt"
	"maps"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// The API's objects as herd's own agents read and write them: the inverse
// of what the server renders (node.go, pod.go), kept in one package so
// that both sides speak of one set of fields and annotations.

// PodFromAPI reads a Pod as herd serves it back into the domain pod a
// node's runtime works with: its spec and zone, its status, its address
// (herd.dev/pod-network-*) and the termination steps recorded so far.
// herd's output annotations are taken out of the pod's own annotations.
func PodFromAPI(in corev1.Pod) (domain.Pod, error) {
	c, err := CreatePodFromAPI(in, string(in.UID))
	if err != nil {
		return domain.Pod{}, err
	}
	rv, err := strconv.ParseInt(in.ResourceVersion, 10, 64)
	if err != nil {
		return domain.Pod{}, fmt.Errorf("pod %s/%s: resourceVersion %q: %w", in.Namespace, in.Name, in.ResourceVersion, err)
	}
	p := domain.Pod{
		Namespace: c.Namespace, Name: c.Name, UID: c.UID,
		Labels: c.Labels, Annotations: c.Annotations, Finalizers: c.Finalizers, Owners: c.Owners,
		CreatedAt: in.CreationTimestamp.UTC(),
		Spec:      c.Spec,
		Status:    PodStatusFromAPI(in.Status),
		// Version is unknown to a client; any pod it was given exists.
		Version:         1,
		ResourceVersion: rv,
	}
	p.Spec.TerminationGracePeriodSeconds = domain.DefaultTerminationGracePeriodSeconds
	if g := in.Spec.TerminationGracePeriodSeconds; g != nil {
		p.Spec.TerminationGracePeriodSeconds = *g
	}
	if in.Spec.SchedulerName == "" {
		p.Source = domain.SourceKubelet
	}
	a := in.Annotations
	if pool := a[AnnotationNetworkPool]; pool != "" {
		bits, err := strconv.Atoi(a[AnnotationNetworkPrefixLength])
		if err != nil {
			return domain.Pod{}, fmt.Errorf("pod %s/%s: annotation %s %q: %w", in.Namespace, in.Name, AnnotationNetworkPrefixLength, a[AnnotationNetworkPrefixLength], err)
		}
		p.Network = &domain.PodNetwork{Pool: pool, IP: a[AnnotationNetworkIP], PrefixLength: bits, Gateway: a[AnnotationNetworkGateway]}
	}
	if ts := in.DeletionTimestamp; ts != nil {
		d := &domain.PodDeletion{Deadline: ts.UTC()}
		if g := in.DeletionGracePeriodSeconds; g != nil {
			d.GracePeriodSeconds = *g
			d.RequestedAt = d.Deadline.Add(-time.Duration(*g) * time.Second)
		}
		for key, at := range map[string]*time.Time{
			AnnotationShutdownRequestedAt: &d.ShutdownRequestedAt, AnnotationHaltedAt: &d.HaltedAt,
			AnnotationStoppedAt: &d.StoppedAt, AnnotationDeprovisionedAt: &d.DeprovisionedAt,
		} {
			if v := a[key]; v != "" {
				t, err := time.Parse(time.RFC3339Nano, v)
				if err != nil {
					return domain.Pod{}, fmt.Errorf("pod %s/%s: annotation %s %q: %w", in.Namespace, in.Name, key, v, err)
				}
				*at = t.UTC()
			}
		}
		p.Deletion = d
	}
	return p, nil
}

// PodStatusToAPI is the Pod a status report sends (PUT .../status): the
// status, under the resourceVersion it was decided on, so that herd
// refuses it with 409 Conflict if the pod changed in between.
func PodStatusToAPI(p domain.Pod, st domain.PodStatus) corev1.Pod {
	q := p
	q.Status = st
	out := PodToAPI(q)
	out.ResourceVersion = strconv.FormatInt(p.ResourceVersion, 10)
	return out
}

// NodeFromAPI reads a Node as herd serves it: its kind (herd.dev/kind),
// its labels, addresses, capacity and conditions, and its agent's state
// and restarts.
func NodeFromAPI(in corev1.Node) domain.Node {
	labels := maps.Clone(in.Labels)
	delete(labels, LabelKind)
	if len(labels) == 0 {
		labels = nil
	}
	n := domain.Node{
		Name: in.Name, UID: string(in.UID), Kind: domain.NodeKind(in.Labels[LabelKind]), Labels: labels,
		Addresses:     AddressesFromAPI(in.Status.Addresses),
		Capacity:      ResourcesFromAPI(in.Status.Capacity),
		Allocatable:   ResourcesFromAPI(in.Status.Allocatable),
		Info:          NodeInfoFromAPI(in.Status.NodeInfo),
		Unschedulable: in.Spec.Unschedulable,
		Version:       1,
	}
	n.ResourceVersion, _ = strconv.ParseInt(in.ResourceVersion, 10, 64)
	n.AgentState = domain.AgentState(in.Annotations[AnnotationAgentState])
	n.RestartCount, _ = strconv.Atoi(in.Annotations[annotationRestarts])
	n.LastRestartReason = in.Annotations[annotationRestartWhy]
	for _, c := range in.Status.Conditions {
		n.Conditions = append(n.Conditions, domain.Condition{
			Type: domain.ConditionType(c.Type), Status: domain.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
			LastHeartbeatTime: c.LastHeartbeatTime.UTC(), LastTransitionTime: c.LastTransitionTime.UTC(),
		})
	}
	return n
}

// RegistrationToAPI is the Node an agent registers with (PUT
// /apis/herd.dev/v1/nodes/NAME/registration): its kind as the
// herd.dev/kind label, and herd.dev/runtime when the agent runs its own
// pods.
func RegistrationToAPI(reg domain.Registration) corev1.Node {
	labels := maps.Clone(reg.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelKind] = string(reg.Kind)
	out := corev1.Node{
		TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: reg.Name, Labels: labels, Annotations: maps.Clone(reg.Annotations)},
		Status: corev1.NodeStatus{
			Capacity:    toResourceList(reg.Capacity),
			Allocatable: toResourceList(reg.Allocatable),
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: reg.Info.MachineID, SystemUUID: reg.Info.SystemUUID, BootID: reg.Info.BootID,
				KernelVersion: reg.Info.KernelVersion, OSImage: reg.Info.OSImage,
				ContainerRuntimeVersion: reg.Info.ContainerRuntimeVersion, KubeletVersion: reg.Info.AgentVersion,
				OperatingSystem: reg.Info.OperatingSystem, Architecture: reg.Info.Architecture,
			},
		},
	}
	for _, a := range reg.Addresses {
		out.Status.Addresses = append(out.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeAddressType(a.Type), Address: a.Address})
	}
	return out
}

// TerminationStepRequest is the body of POST
// /apis/herd.dev/v1/namespaces/NS/pods/NAME/termination: a node's agent
// recording one step of a pod's way out.
type TerminationStepRequest struct {
	// Step is ShutdownRequested, Halted, Stopped or Deprovisioned.
	Step string `json:"step"`
	// UID, when set, is the pod the step is about: a pod recreated under
	// the same name in the meantime is another pod, and the request is a
	// conflict.
	UID string `json:"uid,omitempty"`
}

// AgentHeartbeat is the body of a herd agent's heartbeat. Every metric is
// required, but for CPU use, links and services; a missing one is named
// in the error.
type AgentHeartbeat struct {
	Metrics *AgentMetrics `json:"metrics"`
}

// AgentMetrics mirrors domain.Metrics with every field optional on the
// wire, so that a missing field can be told from a zero.
type AgentMetrics struct {
	CPUCount             *int     `json:"cpuCount"`
	Load1                *float64 `json:"load1"`
	Load5                *float64 `json:"load5"`
	Load15               *float64 `json:"load15"`
	MemoryTotalBytes     *int64   `json:"memoryTotalBytes"`
	MemoryAvailableBytes *int64   `json:"memoryAvailableBytes"`
	DiskTotalBytes       *int64   `json:"diskTotalBytes"`
	DiskAvailableBytes   *int64   `json:"diskAvailableBytes"`
	PIDsMax              *int64   `json:"pidsMax"`
	PIDsCurrent          *int64   `json:"pidsCurrent"`
	ActiveJobs           *int     `json:"activeJobs"`
	// CPUPercent, Links and Services are optional: an agent that does not
	// report them leaves them out, and herd derives no CPUPressure,
	// NetworkUnavailable or ServicesHealthy (see domain.Metrics).
	CPUPercent *float64              `json:"cpuPercent,omitempty"`
	Links      []domain.NetworkLink  `json:"links,omitempty"`
	Services   []domain.ServiceState `json:"services,omitempty"`
}
