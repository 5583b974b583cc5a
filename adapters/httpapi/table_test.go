package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/conversions"
	"herd/domain"
)

// TestNodeTableFollowsKubectl checks the cells of the node table against
// what kubectl's own printer shows for the same Node.
func TestNodeTableFollowsKubectl(t *testing.T) {
	now := t0
	s := &Server{Deps: Deps{Clock: clocktesting.NewFakeClock(now)}}
	if err := s.indexKinds(); err != nil {
		t.Fatal(err)
	}
	ready := func(status domain.ConditionStatus) []domain.Condition {
		return []domain.Condition{{Type: domain.ConditionReady, Status: status}}
	}
	base := domain.Node{
		Name: "web-01", Kind: domain.KindLinux, StartedAt: now.Add(-90 * time.Minute), Version: 1, AgentState: domain.AgentReady,
		Info:      domain.NodeInfo{AgentVersion: "herd-agent/1.0", OSImage: "Ubuntu 24.04.1 LTS", KernelVersion: "6.8.0", ContainerRuntimeVersion: "containerd://2.0"},
		Addresses: []domain.Address{{Type: "InternalIP", Address: "10.0.0.21"}},
	}
	with := func(f func(*domain.Node)) domain.Node {
		n := base
		f(&n)
		return n
	}
	tests := []struct {
		name string
		node domain.Node
		want []any
	}{
		{"ready", with(func(n *domain.Node) { n.Conditions = ready(domain.ConditionTrue) }),
			[]any{"web-01", "Ready", "<none>", "90m", "herd-agent/1.0", "10.0.0.21", "<none>", "Ubuntu 24.04.1 LTS", "6.8.0", "containerd://2.0", "linux", "Ready"}},
		{"not ready", with(func(n *domain.Node) { n.Conditions = ready(domain.ConditionFalse) }),
			[]any{"web-01", "NotReady", "<none>", "90m", "herd-agent/1.0", "10.0.0.21", "<none>", "Ubuntu 24.04.1 LTS", "6.8.0", "containerd://2.0", "linux", "Ready"}},
		{"silent: Ready Unknown reads NotReady, as kubectl prints it, and the agent is Lost", with(func(n *domain.Node) {
			n.Conditions = ready(domain.ConditionUnknown)
			n.AgentState = domain.AgentLost
		}),
			[]any{"web-01", "NotReady", "<none>", "90m", "herd-agent/1.0", "10.0.0.21", "<none>", "Ubuntu 24.04.1 LTS", "6.8.0", "containerd://2.0", "linux", "Lost"}},
		{"never reported: Unknown", with(func(n *domain.Node) {}),
			[]any{"web-01", "Unknown", "<none>", "90m", "herd-agent/1.0", "10.0.0.21", "<none>", "Ubuntu 24.04.1 LTS", "6.8.0", "containerd://2.0", "linux", "Ready"}},
		{"cordoned", with(func(n *domain.Node) { n.Conditions = ready(domain.ConditionTrue); n.Unschedulable = true }),
			[]any{"web-01", "Ready,SchedulingDisabled", "<none>", "90m", "herd-agent/1.0", "10.0.0.21", "<none>", "Ubuntu 24.04.1 LTS", "6.8.0", "containerd://2.0", "linux", "Ready"}},
		{"roles from both kinds of label", with(func(n *domain.Node) {
			n.Labels = map[string]string{"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "edge"}
		}), []any{"web-01", "Unknown", "control-plane,edge,worker", "90m", "herd-agent/1.0", "10.0.0.21", "<none>", "Ubuntu 24.04.1 LTS", "6.8.0", "containerd://2.0", "linux", "Ready"}},
		{"nothing known of the software", with(func(n *domain.Node) { n.Info = domain.NodeInfo{}; n.Addresses = nil; n.Kind = domain.KindRP2040 }),
			[]any{"web-01", "Unknown", "<none>", "90m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>", "rp2040", "Ready"}},
	}
	r := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/api/v1/nodes", nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, _ := s.kindFor("", "nodes")
			item, err := json.Marshal(conversions.NodeToAPI(tt.node))
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := k.list.table(s, r, [][]byte{item}, "7")
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for _, c := range tbl.ColumnDefinitions {
				if c.Priority == 0 {
					cols = append(cols, c.Name)
				}
			}
			if want := []string{"Name", "Status", "Roles", "Age", "Version"}; !cmp.Equal(cols, want) {
				t.Errorf("columns %v, want %v", cols, want)
			}
			if diff := cmp.Diff(tt.want, tbl.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
			if tbl.ResourceVersion != "7" || tbl.Kind != "Table" || tbl.APIVersion != metav1.SchemeGroupVersion.String() {
				t.Errorf("table %s %s at %q", tbl.APIVersion, tbl.Kind, tbl.ResourceVersion)
			}
		})
	}
}
