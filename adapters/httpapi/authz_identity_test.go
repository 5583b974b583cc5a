package httpapi

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// caseTwinNode is a Node body that names two objects: "name" (what the
// handler's case-sensitive decoder reads) and "Name" (what encoding/json,
// blind to case, read last). Authorization once read the second and the
// handler stored the first.
func caseTwinNode(stored, claimed string) string {
	return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"` + stored + `","Name":"` + claimed + `",` +
		`"labels":{"node-role.kubernetes.io/control-plane":""}},"status":{"capacity":{"cpu":"500"}}}`
}

// TestANodeSpeaksOnlyForTheNameTheHandlerReads: a body whose keys differ
// only in case names one object to authorization and the handler alike,
// on the main listener with a node's token and on the device listener
// with no credential; the victim is never created and the log does not
// move.
func TestANodeSpeaksOnlyForTheNameTheHandlerReads(t *testing.T) {
	api, base := newAuthAPI(t)
	dev := deviceListener(t, api, DeviceConfig{
		Allow:          []string{"pico-*"},
		SourceNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")},
	})
	pico := from(t, "127.0.0.3")
	lease := `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"pico-02","Name":"pico-01","namespace":"kube-node-lease"},` +
		`"spec":{"holderIdentity":"pico-02"}}`
	tests := []struct {
		name   string
		client *http.Client
		base   string
		rq     req
	}{
		{"a node's token, a Node", nil, base, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: caseTwinNode("victim", "pico-01")}},
		{"a node's token, a Lease", nil, base, req{method: "POST", path: "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", token: "pico1-token", body: lease}},
		{"the device listener, a Node", pico, dev, req{method: "POST", path: "/api/v1/nodes", body: caseTwinNode("web-01", "pico-07")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, tt.client, tt.base, tt.rq)
			if a.code != http.StatusForbidden {
				t.Fatalf("%d %s, want 403", a.code, a.body)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused request moved the log from %d to %d", before, after)
			}
		})
	}
	for _, name := range []string{"victim", "web-01"} {
		mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: "/api/v1/nodes/" + name, token: "admin-token"})
	}
}

// labelledNode is nodeJSON for name with one more label.
func labelledNode(name, label string) string {
	return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"` + name + `","labels":{"` + label + `":"","kubernetes.io/hostname":"` + name + `"}}}`
}

// TestNodeRestrictionLabels: a node registering itself, or an agent
// registering again, may set the kubelet's own labels but not a role nor
// anything under node-restriction.kubernetes.io, as kube-apiserver's
// NodeRestriction answers; an administrator may; a refusal names the
// labels and appends nothing.
func TestNodeRestrictionLabels(t *testing.T) {
	api, base := newAuthAPI(t)
	dev := deviceListener(t, api, DeviceConfig{
		Allow:          []string{"pico-*"},
		SourceNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")},
	})
	pico := from(t, "127.0.0.3")
	registration := "/apis/herd.dev/v1/nodes/pico-02/registration"
	tests := []struct {
		name   string
		client *http.Client
		base   string
		rq     req
		code   int
		want   string
	}{
		{"a node gives itself a role", nil, base, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: labelledNode("pico-01", "node-role.kubernetes.io/control-plane")}, 403,
			`node "pico-01" is not allowed to set the following labels: node-role.kubernetes.io/control-plane`},
		{"a node sets a node-restriction label", nil, base, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: labelledNode("pico-01", "node-restriction.kubernetes.io/secure")}, 403,
			"node-restriction.kubernetes.io/secure"},
		{"nor under a subdomain of k8s.io", nil, base, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: labelledNode("pico-01", "example.k8s.io/x")}, 403, "example.k8s.io/x"},
		{"a device gives itself a role", pico, dev, req{method: "POST", path: "/api/v1/nodes", body: labelledNode("pico-05", "node-role.kubernetes.io/worker")}, 403, "node-role.kubernetes.io/worker"},
		{"an agent gives itself a role when it registers again", nil, base, req{method: "PUT", path: registration, token: "pico2-token", body: labelledNode("pico-02", "node-role.kubernetes.io/worker")}, 403,
			`node "pico-02" is not allowed to modify labels: node-role.kubernetes.io/worker`},
		{"the kubelet's own labels pass", nil, base, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: labelledNode("pico-01", "node.kubernetes.io/exclude-from-external-load-balancers")}, 201, ""},
		{"labels of its own domain pass", nil, base, req{method: "PUT", path: registration, token: "pico2-token", body: labelledNode("pico-02", "example.com/rack")}, 200, ""},
		{"an administrator gives a role", nil, base, req{method: "POST", path: "/api/v1/nodes", token: "admin-token", body: labelledNode("web-01", "node-role.kubernetes.io/control-plane")}, 201, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, tt.client, tt.base, tt.rq)
			if a.code != tt.code {
				t.Fatalf("%d %s, want %d", a.code, a.body, tt.code)
			}
			if tt.code != http.StatusForbidden {
				return
			}
			if _, msg := a.status(t); !strings.Contains(msg, tt.want) {
				t.Errorf("message %q does not say %q", msg, tt.want)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused request moved the log from %d to %d", before, after)
			}
		})
	}
}

// TestMetricsAreReadAsTheFleetIs: /metrics names every node and its
// state, so a node's token, which may not list nodes, may not scrape it
// either; administrators, viewers and the system:monitoring group may.
func TestMetricsAreReadAsTheFleetIs(t *testing.T) {
	_, base := newAuthAPI(t)
	for token, code := range map[string]int{
		"admin-token": 200, "viewer-token": 200, "prom-token": 200,
		"pico1-token": 403, "norole-token": 403, "": 401,
	} {
		a := send(t, nil, base, req{method: "GET", path: "/metrics", token: token})
		if a.code != code {
			t.Errorf("token %q: %d %s, want %d", token, a.code, a.body, code)
		}
	}
}

// TestANodeListsItselfAsAKubeletDoes: a kubelet's node informer lists and
// watches its own Node with fieldSelector=metadata.name=NAME, which
// kube-apiserver allows; any other list stays refused.
func TestANodeListsItselfAsAKubeletDoes(t *testing.T) {
	_, base := newAuthAPI(t)
	tests := []struct {
		name, query string
		code        int
	}{
		{"itself", "?fieldSelector=metadata.name%3Dpico-02", 200},
		{"itself, with more terms", "?fieldSelector=metadata.name%3Dpico-02,spec.unschedulable%3Dfalse", 200},
		{"another", "?fieldSelector=metadata.name%3Dpico-01", 403},
		{"all", "", 403},
		{"by a set", "?fieldSelector=metadata.name!%3Dpico-01", 403},
	}
	for _, tt := range tests {
		a := send(t, nil, base, req{method: "GET", path: "/api/v1/nodes" + tt.query, token: "pico2-token"})
		if a.code != tt.code {
			t.Errorf("%s: %d %s, want %d", tt.name, a.code, a.body, tt.code)
		}
		if tt.code == 200 && !strings.Contains(string(a.body), `"name":"pico-02"`) {
			t.Errorf("%s: the list lacks the node: %s", tt.name, a.body)
		}
	}
}
