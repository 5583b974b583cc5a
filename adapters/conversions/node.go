package conversions

import (
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"herd/domain"
)

// LabelKind is the node label that carries the node's kind; the domain
// stores it with the node's labels (domain.LabelKind).
const LabelKind = domain.LabelKind

// Annotations herd adds to the Nodes it serves. They are views of herd's
// own fields, recomputed on every read and ignored on input.
const (
	AnnotationAgentState  = "herd.dev/agent-state"
	annotationRestarts    = "herd.dev/restart-count"
	annotationRestartWhy  = "herd.dev/last-restart-reason"
	annotationStartedAt   = "herd.dev/started-at"
	annotationHeartbeatAt = "herd.dev/last-heartbeat"
	// AnnotationMaxJobs caps the pods herd places on the node (an
	// agent's --max-jobs); absent when there is no cap.
	AnnotationMaxJobs = "herd.dev/max-jobs"
	// AnnotationActiveJobs is the pods the node's agent last reported
	// running; absent for a node whose agent reports no metrics.
	AnnotationActiveJobs = "herd.dev/active-jobs"
	// annotationScrapeFailure says why herd cannot poll a kubelet node.
	annotationScrapeFailure = "herd.dev/scrape-failure"
)

// NodeLabels are the labels a Kubernetes client sees on n: its own and
// its kind. The map is n's own when n holds its kind label already (every
// node evolved since herd stores it): it must not be changed.
func NodeLabels(n domain.Node) map[string]string {
	if k, ok := n.Labels[LabelKind]; ok && k == string(n.Kind) {
		return n.Labels
	}
	return nodeLabelsCopy(n)
}

// nodeLabelsCopy is NodeLabels in a map of its own.
func nodeLabelsCopy(n domain.Node) map[string]string {
	// The node stores its kind label; a node row written before it did
	// still shows one.
	labels := make(map[string]string, len(n.Labels)+1)
	labels[LabelKind] = string(n.Kind)
	for k, v := range n.Labels {
		labels[k] = v
	}
	return labels
}

// NodeToAPI renders a domain node as a Kubernetes Node.
func NodeToAPI(n domain.Node) corev1.Node {
	labels := nodeLabelsCopy(n)
	ann := map[string]string{
		AnnotationAgentState: string(n.AgentState),
		annotationRestarts:   strconv.Itoa(n.RestartCount),
		annotationStartedAt:  n.StartedAt.UTC().Format(rfc3339),
	}
	if n.LastRestartReason != "" {
		ann[annotationRestartWhy] = n.LastRestartReason
	}
	if !n.LastHeartbeat.IsZero() {
		ann[annotationHeartbeatAt] = n.LastHeartbeat.UTC().Format(rfc3339)
	}
	if n.MaxJobs > 0 {
		ann[AnnotationMaxJobs] = strconv.Itoa(n.MaxJobs)
	}
	if n.Metrics != nil {
		ann[AnnotationActiveJobs] = strconv.Itoa(n.Metrics.ActiveJobs)
	}
	if f := n.ScrapeFailure; f != nil {
		// Why herd cannot hear from the node's kubelet: "Reason: message".
		ann[annotationScrapeFailure] = f.Reason + ": " + f.Message
	}
	for k, v := range n.Annotations {
		ann[k] = v
	}
	out := corev1.Node{
		TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              n.Name,
			UID:               types.UID(n.UID),
			ResourceVersion:   strconv.FormatInt(n.ResourceVersion, 10),
			CreationTimestamp: metav1.NewTime(n.StartedAt),
			Labels:            labels,
			Annotations:       ann,
		},
		Status: corev1.NodeStatus{
			Capacity:    toResourceList(n.Capacity),
			Allocatable: toResourceList(n.Allocatable),
			NodeInfo: corev1.NodeSystemInfo{
				MachineID:               n.Info.MachineID,
				SystemUUID:              n.Info.SystemUUID,
				BootID:                  n.Info.BootID,
				KernelVersion:           n.Info.KernelVersion,
				OSImage:                 n.Info.OSImage,
				ContainerRuntimeVersion: n.Info.ContainerRuntimeVersion,
				KubeletVersion:          n.Info.AgentVersion,
				KubeProxyVersion:        n.Info.KubeProxyVersion, //nolint:staticcheck // SA1019: kubelets before 1.31 still report it; herd passes on what the node sends
				OperatingSystem:         n.Info.OperatingSystem,
				Architecture:            n.Info.Architecture,
			},
		},
	}
	out.Status.DaemonEndpoints.KubeletEndpoint.Port = n.KubeletPort
	out.Spec.Unschedulable = n.Unschedulable
	for _, t := range n.Taints {
		added := metav1.NewTime(t.TimeAdded)
		out.Spec.Taints = append(out.Spec.Taints, corev1.Taint{
			Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect), TimeAdded: &added,
		})
	}
	for _, a := range n.Addresses {
		out.Status.Addresses = append(out.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeAddressType(a.Type), Address: a.Address})
	}
	for _, c := range readyLast(n.Conditions) {
		out.Status.Conditions = append(out.Status.Conditions, corev1.NodeCondition{
			Type:               corev1.NodeConditionType(c.Type),
			Status:             corev1.ConditionStatus(c.Status),
			LastHeartbeatTime:  metav1.NewTime(c.LastHeartbeatTime),
			LastTransitionTime: metav1.NewTime(c.LastTransitionTime),
			Reason:             c.Reason,
			Message:            c.Message,
		})
	}
	return out
}

// readyLast returns cs with Ready moved to the end and the rest in their
// order, as a kubelet's setNodeStatus appends them (MemoryPressure,
// DiskPressure, PIDPressure, then Ready): scripts read a node's readiness
// as .status.conditions[-1], so herd's own conditions go before Ready too.
func readyLast(cs []domain.Condition) []domain.Condition {
	out := make([]domain.Condition, 0, len(cs))
	var ready []domain.Condition
	for _, c := range cs {
		if c.Type == domain.ConditionReady {
			ready = append(ready, c)
			continue
		}
		out = append(out, c)
	}
	return append(out, ready...)
}

const rfc3339 = "2006-01-02T15:04:05Z07:00"

// RegistrationFromAPI reads the registration a client posted as a
// Kubernetes Node. Its labels are taken as sent: herd.dev/kind names the
// kind (defaultKind without it), and the domain refuses a derived label it
// disagrees with rather than have it vanish. herd's own annotations are
// dropped: they are outputs.
func RegistrationFromAPI(in corev1.Node, defaultKind domain.NodeKind) domain.Registration {
	reg := domain.Registration{
		Name:        in.Name,
		UID:         string(in.UID),
		Kind:        defaultKind,
		Labels:      maps.Clone(in.Labels),
		Annotations: WithoutHerdKeys(in.Annotations),
		Capacity:    ResourcesFromAPI(in.Status.Capacity),
		Allocatable: ResourcesFromAPI(in.Status.Allocatable),
		KubeletPort: in.Status.DaemonEndpoints.KubeletEndpoint.Port,
		Info:        NodeInfoFromAPI(in.Status.NodeInfo),
	}
	if k, ok := in.Labels[LabelKind]; ok {
		reg.Kind = domain.NodeKind(k)
	}
	if v, err := strconv.Atoi(in.Annotations[AnnotationMaxJobs]); err == nil {
		reg.MaxJobs = v
	}
	reg.Addresses = AddressesFromAPI(in.Status.Addresses)
	return reg
}

// NodeInfoFromAPI reads the software a node reports (status.nodeInfo);
// kubeletVersion is the version of whatever agent speaks for the node.
func NodeInfoFromAPI(in corev1.NodeSystemInfo) domain.NodeInfo {
	return domain.NodeInfo{
		AgentVersion:            in.KubeletVersion,
		KernelVersion:           in.KernelVersion,
		OSImage:                 in.OSImage,
		OperatingSystem:         in.OperatingSystem,
		Architecture:            in.Architecture,
		ContainerRuntimeVersion: in.ContainerRuntimeVersion,
		KubeProxyVersion:        in.KubeProxyVersion, //nolint:staticcheck // SA1019: kubelets before 1.31 still report it; herd passes on what the node sends
		MachineID:               in.MachineID,
		SystemUUID:              in.SystemUUID,
		BootID:                  in.BootID,
	}
}

// AddressesFromAPI reads a node's reported addresses (status.addresses).
func AddressesFromAPI(in []corev1.NodeAddress) []domain.Address {
	var out []domain.Address
	for _, a := range in {
		out = append(out, domain.Address{Type: string(a.Type), Address: a.Address})
	}
	return out
}

// ReportedConditionsFromAPI takes the statuses a node computed itself; its
// timestamps are ignored, herd's clock decides those.
func ReportedConditionsFromAPI(in []corev1.NodeCondition) []domain.ReportedCondition {
	out := make([]domain.ReportedCondition, 0, len(in))
	for _, c := range in {
		out = append(out, domain.ReportedCondition{
			Type: domain.ConditionType(c.Type), Status: domain.ConditionStatus(c.Status),
			Reason: c.Reason, Message: c.Message,
		})
	}
	return out
}

// herdInputKeys are the herd.dev/ annotation keys a client may set: the
// rest are outputs herd computes (agent state, restarts, zone settings it
// reads separately), which a client echoing an object back must not
// overwrite. Labels are not filtered: the domain checks the ones it
// derives (domain.LabelKind).
var herdInputKeys = map[string]bool{
	// A node whose own agent runs its pods says so at registration.
	domain.LabelRuntime: true,
}

// WithoutHerdKeys drops the herd.dev/ keys that are herd's outputs.
func WithoutHerdKeys(m map[string]string) map[string]string {
	var out map[string]string
	for k, v := range m {
		if strings.HasPrefix(k, "herd.dev/") && !herdInputKeys[k] {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// toResourceList renders base units as Kubernetes quantities: CPU in
// millicores, memory-like resources in binary SI (256Ki), counts decimal.
// Each quantity carries its text, written once here: a quantity in a map
// is encoded from a copy, which keeps none of the text it writes, and
// protobuf writes each one twice (its size, then its bytes).
func toResourceList(in domain.ResourceList) corev1.ResourceList {
	if len(in) == 0 {
		return nil
	}
	out := make(corev1.ResourceList, len(in))
	for name, v := range in {
		var q *resource.Quantity
		switch name {
		case "cpu":
			q = resource.NewMilliQuantity(v, resource.DecimalSI)
		case "memory", "ephemeral-storage":
			q = resource.NewQuantity(v, resource.BinarySI)
		default:
			q = resource.NewQuantity(v, resource.DecimalSI)
		}
		_ = q.String() // keeps its text
		out[corev1.ResourceName(name)] = *q
	}
	return out
}

// ResourcesFromAPI reads Kubernetes quantities in herd's base units: CPU
// in millicores, everything else in plain units (bytes, counts).
func ResourcesFromAPI(in corev1.ResourceList) domain.ResourceList {
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
