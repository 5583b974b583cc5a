package httpapi

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"herd/adapters/conversions"
)

// nodeRows are nodes as kubectl get nodes prints them; the wide
// columns (priority 1) show with -o wide.
func nodeRows(s *Server, nodes []corev1.Node, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: "Name of the node"},
		{Name: "Status", Type: "string", Description: "Ready, NotReady or Unknown, and SchedulingDisabled when cordoned"},
		{Name: "Roles", Type: "string", Description: "Roles from node-role.kubernetes.io labels"},
		{Name: "Age", Type: "string", Description: "Time since herd first saw the node"},
		{Name: "Version", Type: "string", Description: "Kubelet or agent version"},
		{Name: "Internal-IP", Type: "string", Priority: 1},
		{Name: "External-IP", Type: "string", Priority: 1},
		{Name: "OS-Image", Type: "string", Priority: 1},
		{Name: "Kernel-Version", Type: "string", Priority: 1},
		{Name: "Container-Runtime", Type: "string", Priority: 1},
		{Name: "Kind", Type: "string", Priority: 1, Description: "How herd reaches the node"},
		{Name: "State", Type: "string", Priority: 1, Description: "The agent state: Starting, Ready, Draining, Drained, Stopped, or Lost when its heartbeats stopped without a deregistration"},
	}}
	now := s.Clock.Now()
	for i := range nodes {
		n := &nodes[i]
		t.cells = append(t.cells, []any{
			n.Name, NodeStatus(n), nodeRoles(n),
			duration.HumanDuration(now.Sub(n.CreationTimestamp.Time)),
			n.Status.NodeInfo.KubeletVersion,
			address(n, corev1.NodeInternalIP), address(n, corev1.NodeExternalIP),
			orUnknown(n.Status.NodeInfo.OSImage), orUnknown(n.Status.NodeInfo.KernelVersion),
			orUnknown(n.Status.NodeInfo.ContainerRuntimeVersion), n.Labels[conversions.LabelKind],
			n.Annotations[conversions.AnnotationAgentState],
		})
	}
	return t
}

// rowObject embeds the object's metadata, or the whole object when the
// client asked with includeObject=Object.
func rowObject(r *http.Request, obj any, meta metav1.ObjectMeta) runtime.RawExtension {
	return includedObject(r.URL.Query().Get("includeObject"), obj, meta)
}

// NodeStatus is kubectl's STATUS of a node: Ready, NotReady or Unknown,
// with SchedulingDisabled when it is cordoned.
func NodeStatus(n *corev1.Node) string {
	status := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			switch c.Status {
			case corev1.ConditionTrue:
				status = "Ready"
			case corev1.ConditionFalse:
				status = "NotReady"
			default:
				status = "NotReady"
			}
		}
	}
	if n.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	return status
}

// nodeRoles are the roles kubectl shows: node-role.kubernetes.io/<role>
// labels, and the older kubernetes.io/role=<role>.
func nodeRoles(n *corev1.Node) string {
	var roles []string
	for k, v := range n.Labels {
		role, ok := strings.CutPrefix(k, "node-role.kubernetes.io/")
		if !ok && k == "kubernetes.io/role" {
			role, ok = v, true
		}
		if ok && role != "" && !slices.Contains(roles, role) {
			roles = append(roles, role)
		}
	}
	if len(roles) == 0 {
		return "<none>"
	}
	sort.Strings(roles)
	return strings.Join(roles, ",")
}

func address(n *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}
