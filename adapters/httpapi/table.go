package httpapi

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

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
		nameColumn("node"), column("Status", "Ready, NotReady or Unknown, and SchedulingDisabled when cordoned"),
		column("Roles", "Roles from node-role.kubernetes.io labels"), ageColumn("herd first saw the node"),
		column("Version", "Kubelet or agent version"),
		wide("Internal-IP", ""), wide("External-IP", ""), wide("OS-Image", ""), wide("Kernel-Version", ""), wide("Container-Runtime", ""),
		wide("Kind", "How herd reaches the node"),
		wide("State", "The agent state: Starting, Ready, Draining, Drained, Stopped, or Lost when its heartbeats stopped without a deregistration"),
	}}
	now := s.Clock.Now()
	for i := range nodes {
		n := &nodes[i]
		t.cells = append(t.cells, []any{
			n.Name, NodeStatus(n), nodeRoles(n),
			age(now, n.CreationTimestamp),
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

// The columns kubectl prints, in few words: column is one every table
// shows, wide one that -o wide adds; nameColumn names what the table
// lists and ageColumn says how old it is.
func column(name, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: "string", Description: description}
}

func wide(name, description string) metav1.TableColumnDefinition {
	c := column(name, description)
	c.Priority = 1
	return c
}

func nameColumn(what string) metav1.TableColumnDefinition {
	c := column("Name", "Name of the "+what)
	c.Format = "name"
	return c
}

func ageColumn(since string) metav1.TableColumnDefinition {
	return column("Age", "Time since "+since)
}

// age is how long ago t was, as kubectl prints it.
func age(now time.Time, t metav1.Time) string { return duration.HumanDuration(now.Sub(t.Time)) }

// containerCells are a workload's CONTAINERS and IMAGES cells, as
// kubectl get -o wide prints them: its pod template's containers' names
// and images, each joined by commas.
func containerCells(spec corev1.PodSpec) (names, images string) {
	n, i := make([]string, len(spec.Containers)), make([]string, len(spec.Containers))
	for k, c := range spec.Containers {
		n[k], i[k] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}
