package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// nodeLabels reads a node's labels as an administrator sees them.
func nodeLabels(t *testing.T, base, name string) map[string]string {
	t.Helper()
	a := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/" + name, token: "admin-token"})
	var n corev1.Node
	if err := json.Unmarshal(a.body, &n); err != nil {
		t.Fatal(err)
	}
	return n.Labels
}

// TestANodeRegisteringAgainKeepsTheLabelsAnAdminSet: pico-02's own token
// registers it again through herd's registration route without the
// labels an administrator gave it, node-restriction.kubernetes.io/ ones
// included, and they stay, as they outlive a kubelet's restart; what the
// node sends again wins. Neither that route nor the Kubernetes paths a
// kubelet uses (POST, PATCH or PUT of its Node, its status) let the node
// set, change or remove a node-restriction label: 403 naming it, and
// nothing written.
func TestANodeRegisteringAgainKeepsTheLabelsAnAdminSet(t *testing.T) {
	api, base := newAuthAPI(t)
	registration := "/apis/herd.dev/v1/nodes/pico-02/registration"
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: registration, token: "pico2-token",
		body: `{"metadata":{"name":"pico-02","labels":{"kubernetes.io/hostname":"pico-02","example.com/rack":"r1"}}}`})
	mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: "/api/v1/nodes/pico-02", token: "admin-token",
		contentType: "application/merge-patch+json",
		body:        `{"metadata":{"labels":{"node-restriction.kubernetes.io/tier":"gold","team":"ops"}}}`})

	// The node registers again, sending its own labels only.
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: registration, token: "pico2-token",
		body: `{"metadata":{"name":"pico-02","labels":{"kubernetes.io/hostname":"pico-02","example.com/rack":"r2"}}}`})
	want := map[string]string{
		"kubernetes.io/hostname": "pico-02", "example.com/rack": "r2", "herd.dev/kind": "linux",
		"node-restriction.kubernetes.io/tier": "gold", "team": "ops",
		// From the administrator's first registration of pico-02.
		"node.kubernetes.io/instance-type": "rp2040-pico",
	}
	if diff := cmp.Diff(want, nodeLabels(t, base, "pico-02")); diff != "" {
		t.Fatalf("labels after pico-02 registered again (-want +got):\n%s", diff)
	}

	// herd lets a node write its status, not its Node: those writes
	// are refused whole, the others name the label.
	refused := []struct {
		name  string
		rq    req
		whole bool
	}{
		{"the registration route changes it", req{method: "PUT", path: registration, token: "pico2-token",
			body: `{"metadata":{"name":"pico-02","labels":{"node-restriction.kubernetes.io/tier":"platinum"}}}`}, false},
		{"the registration route empties it", req{method: "PUT", path: registration, token: "pico2-token",
			body: `{"metadata":{"name":"pico-02","labels":{"node-restriction.kubernetes.io/tier":""}}}`}, false},
		{"the registration route adds one", req{method: "PUT", path: registration, token: "pico2-token",
			body: `{"metadata":{"name":"pico-02","labels":{"node-restriction.kubernetes.io/zone":"dmz"}}}`}, false},
		{"a kubelet's PATCH of its Node removes it", req{method: "PATCH", path: "/api/v1/nodes/pico-02", token: "pico2-token",
			contentType: "application/merge-patch+json", body: `{"metadata":{"labels":{"node-restriction.kubernetes.io/tier":null}}}`}, true},
		{"a kubelet's PUT of its Node changes it", req{method: "PUT", path: "/api/v1/nodes/pico-02", token: "pico2-token",
			body: `{"metadata":{"name":"pico-02","labels":{"node-restriction.kubernetes.io/tier":"platinum"}}}`}, true},
		{"a kubelet's POST of its Node sets it", req{method: "POST", path: "/api/v1/nodes", token: "pico1-token",
			body: `{"metadata":{"name":"pico-01","labels":{"node-restriction.kubernetes.io/tier":"gold"}}}`}, false},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, nil, base, tt.rq)
			if a.code != http.StatusForbidden {
				t.Fatalf("%d %s, want 403", a.code, a.body)
			}
			if _, msg := a.status(t); !tt.whole && !strings.Contains(msg, "node-restriction.kubernetes.io/") {
				t.Errorf("message %q does not name the label", msg)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused request moved the log from %d to %d", before, after)
			}
		})
	}

	// A status report is no way around it: metadata in it is not taken.
	send(t, nil, base, req{method: "PATCH", path: "/api/v1/nodes/pico-02/status", token: "pico2-token", contentType: strategicPatch,
		body: `{"metadata":{"labels":{"node-restriction.kubernetes.io/tier":"platinum"}},"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}]}}`})
	if diff := cmp.Diff(want, nodeLabels(t, base, "pico-02")); diff != "" {
		t.Errorf("labels after the refusals and a status report (-want +got):\n%s", diff)
	}
}
