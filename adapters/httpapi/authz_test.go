package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const tokens = `admin-token,alice,1,herd:admins
viewer-token,bob,2,herd:viewers
pico1-token,system:node:pico-01,3,system:nodes
pico2-token,system:node:pico-02,4,system:nodes
norole-token,carol,5
prom-token,prometheus,6,system:monitoring
`

// newAuthAPI is a server with the test tokens, a pico-01 node, and two
// ConfigMaps: pico-config granted to pico-*, secret-config to nobody.
func newAuthAPI(t *testing.T) (*testAPI, string) {
	t.Helper()
	tf, err := ParseTokenFile(strings.NewReader(tokens))
	if err != nil {
		t.Fatal(err)
	}
	api := newTestAPI(t, tf)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", token: "admin-token", body: nodeJSON("pico-02")})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces/default/configmaps", token: "admin-token",
		body: `{"metadata":{"name":"pico-config","annotations":{"herd.dev/readable-by-nodes":"sensor-9, pico-*"}},"data":{"interval":"10"}}`})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces/default/configmaps", token: "admin-token",
		body: `{"metadata":{"name":"secret-config"},"data":{"k":"v"}}`})
	return api, base
}

func TestAuthorization(t *testing.T) {
	api, base := newAuthAPI(t)
	tests := []struct {
		name   string
		rq     req
		code   int
		reason string
	}{
		{"no token", req{method: "GET", path: "/api/v1/nodes"}, 401, "Unauthorized"},
		{"a wrong token", req{method: "GET", path: "/api/v1/nodes", token: "guess"}, 401, "Unauthorized"},
		{"health needs no token", req{method: "GET", path: "/readyz"}, 200, ""},
		{"version needs no token", req{method: "GET", path: "/version"}, 200, ""},
		{"a wrong token on health is still wrong", req{method: "GET", path: "/healthz", token: "guess"}, 401, "Unauthorized"},
		{"discovery needs a token", req{method: "GET", path: "/api/v1"}, 401, "Unauthorized"},
		{"discovery for anyone with a token", req{method: "GET", path: "/api/v1", token: "norole-token"}, 200, ""},
		{"no role reads no nodes", req{method: "GET", path: "/api/v1/nodes", token: "norole-token"}, 403, "Forbidden"},
		{"viewer lists nodes", req{method: "GET", path: "/api/v1/nodes", token: "viewer-token"}, 200, ""},
		{"viewer reads the audit log", req{method: "GET", path: "/apis/herd.dev/v1/auditevents", token: "viewer-token"}, 200, ""},
		{"viewer reads any ConfigMap", req{method: "GET", path: "/api/v1/namespaces/default/configmaps/secret-config", token: "viewer-token"}, 200, ""},
		{"viewer writes nothing", req{method: "DELETE", path: "/api/v1/nodes/pico-02", token: "viewer-token"}, 403, "Forbidden"},
		{"viewer creates no ConfigMap", req{method: "POST", path: "/api/v1/namespaces/default/configmaps", token: "viewer-token", body: `{"metadata":{"name":"x"}}`}, 403, "Forbidden"},
		{"node registers itself", req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: nodeJSON("pico-01")}, 201, ""},
		// client-go's default: the Node in protobuf, its name inside it.
		{"node registers itself in protobuf (already there)", req{method: "POST", path: "/api/v1/nodes", token: "pico2-token", contentType: protobufType, body: string(encode(t, protobufType, testNode("pico-02")))}, 409, "AlreadyExists"},
		{"node registers no other in protobuf", req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", contentType: protobufType, body: string(encode(t, protobufType, testNode("pico-03")))}, 403, "Forbidden"},
		{"node reports its status with a PUT", req{method: "PUT", path: "/api/v1/nodes/pico-01/status", token: "pico1-token", contentType: protobufType, body: string(encode(t, protobufType, testNode("pico-01")))}, 200, ""},
		{"node updates no other's status", req{method: "PUT", path: "/api/v1/nodes/pico-02/status", token: "pico1-token", contentType: protobufType, body: string(encode(t, protobufType, testNode("pico-02")))}, 403, "Forbidden"},
		{"node registers no other", req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: nodeJSON("pico-03")}, 403, "Forbidden"},
		{"node reports its own status", req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", token: "pico1-token", contentType: strategicPatch, body: readyPatch}, 200, ""},
		{"node patches no other node", req{method: "PATCH", path: "/api/v1/nodes/pico-02/status", token: "pico1-token", contentType: strategicPatch, body: readyPatch}, 403, "Forbidden"},
		{"node reads itself", req{method: "GET", path: "/api/v1/nodes/pico-01", token: "pico1-token"}, 200, ""},
		{"node reads no other node", req{method: "GET", path: "/api/v1/nodes/pico-02", token: "pico1-token"}, 403, "Forbidden"},
		{"node lists no nodes", req{method: "GET", path: "/api/v1/nodes", token: "pico1-token"}, 403, "Forbidden"},
		{"node deletes not even itself", req{method: "DELETE", path: "/api/v1/nodes/pico-01", token: "pico1-token"}, 403, "Forbidden"},
		{"node reads a ConfigMap granted to it", req{method: "GET", path: "/api/v1/namespaces/default/configmaps/pico-config", token: "pico1-token"}, 200, ""},
		{"node reads no ConfigMap not granted", req{method: "GET", path: "/api/v1/namespaces/default/configmaps/secret-config", token: "pico1-token"}, 403, "Forbidden"},
		{"node learns nothing of a missing ConfigMap", req{method: "GET", path: "/api/v1/namespaces/default/configmaps/nothing", token: "pico1-token"}, 403, "Forbidden"},
		{"node lists no ConfigMaps", req{method: "GET", path: "/api/v1/namespaces/default/configmaps", token: "pico1-token"}, 403, "Forbidden"},
		{"node changes no ConfigMap", req{method: "PATCH", path: "/api/v1/namespaces/default/configmaps/pico-config", token: "pico1-token", contentType: mergePatch, body: `{"data":{"a":"b"}}`}, 403, "Forbidden"},
		{"node heartbeats as herd's agent for itself", req{method: "POST", path: "/apis/herd.dev/v1/nodes/pico-02/heartbeat", token: "pico2-token", body: `{}`}, 422, "Invalid"},
		{"node heartbeats for no other", req{method: "POST", path: "/apis/herd.dev/v1/nodes/pico-01/heartbeat", token: "pico2-token", body: `{}`}, 403, "Forbidden"},
		{"node releases no device binding", req{method: "DELETE", path: "/apis/herd.dev/v1/devicebindings/pico-01", token: "pico1-token"}, 403, "Forbidden"},
		{"admin does anything", req{method: "DELETE", path: "/api/v1/namespaces/default/configmaps/secret-config", token: "admin-token"}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, nil, base, tt.rq)
			if a.code != tt.code {
				t.Fatalf("%d %s, want %d", a.code, a.body, tt.code)
			}
			if tt.reason == "" {
				return
			}
			if reason, _ := a.status(t); reason != tt.reason {
				t.Errorf("reason %s, want %s: %s", reason, tt.reason, a.body)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused request moved the log from %d to %d", before, after)
			}
		})
	}
}

func TestForbiddenSaysWhoAndWhat(t *testing.T) {
	_, base := newAuthAPI(t)
	a := mustSend(t, nil, base, 403, req{method: "PATCH", path: "/api/v1/nodes/pico-02/status", token: "pico1-token", contentType: strategicPatch, body: readyPatch})
	_, msg := a.status(t)
	for _, want := range []string{`nodes "pico-02" is forbidden`, `User "system:node:pico-01"`, `cannot patch resource "nodes/status"`, `node "pico-01" cannot patch node "pico-02"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestTheActorIsTheAuthenticatedUser(t *testing.T) {
	_, base := newAuthAPI(t)
	mustSend(t, nil, base, 201, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: nodeJSON("pico-01")})
	mustSend(t, nil, base, 200, req{method: "PATCH", path: "/api/v1/namespaces/default/configmaps/pico-config", token: "admin-token",
		contentType: mergePatch, body: `{"data":{"interval":"5"}}`})
	a := mustSend(t, nil, base, 200, req{method: "GET", path: "/apis/herd.dev/v1/auditevents", token: "viewer-token"})
	var list AuditEventList
	if err := json.Unmarshal(a.body, &list); err != nil {
		t.Fatal(err)
	}
	actors := map[string]string{}
	for _, e := range list.Items {
		actors[e.Stream+" "+e.Type] = e.Actor
	}
	for k, want := range map[string]string{
		"node/pico-02 NodeRegistered":                    "alice",
		"node/pico-01 NodeRegistered":                    "system:node:pico-01",
		"configmap/default/pico-config ConfigMapCreated": "alice",
		"configmap/default/pico-config ConfigMapUpdated": "alice",
	} {
		if actors[k] != want {
			t.Errorf("actor of %s is %q, want %q", k, actors[k], want)
		}
	}
}

func TestWithoutATokenFileEveryoneIsAnonymous(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, 201, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")})
	mustSend(t, nil, base, 200, req{method: "DELETE", path: "/api/v1/nodes/pico-01", token: "anything"})
	recs, err := api.store.ReadStream(t.Context(), api.store.DB(), "node/pico-01", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Metadata.Actor != "system:anonymous" || r.Metadata.Source != "httpapi" {
			t.Errorf("%s: actor %q source %q, want system:anonymous through httpapi", r.Type, r.Metadata.Actor, r.Metadata.Source)
		}
	}
}

// TestForbiddenNamesTheRole: a refusal says which role the user has and
// what that role may do, in kube-apiserver's Status (403, reason
// Forbidden, details naming the resource and object), so that a user
// knows whether to ask for another role or use another token.
func TestForbiddenNamesTheRole(t *testing.T) {
	_, base := newAuthAPI(t)
	const (
		viewer = `(role viewer: may get, list and watch every resource, and nothing else)`
		node   = `(role node "pico-01": may register and report for node "pico-01" only, renew its own lease, run the pods bound to it and read the ConfigMaps granted to it)`
		none   = `(no herd role: may read only discovery, /version and the health endpoints; herd's roles are the groups herd:admins, herd:viewers and system:nodes)`
	)
	tests := []struct {
		name    string
		rq      req
		message string
		details metav1.StatusDetails
	}{
		{"a viewer creates a pod", req{method: "POST", path: "/api/v1/namespaces/shop/pods", token: "viewer-token", body: `{"metadata":{"name":"web"}}`},
			`pods is forbidden: User "bob" ` + viewer + ` cannot create resource "pods" in API group "" in the namespace "shop"`,
			metav1.StatusDetails{Kind: "pods"}},
		{"a viewer deletes a node", req{method: "DELETE", path: "/api/v1/nodes/pico-02", token: "viewer-token"},
			`nodes "pico-02" is forbidden: User "bob" ` + viewer + ` cannot delete resource "nodes" in API group "" at the cluster scope`,
			metav1.StatusDetails{Kind: "nodes", Name: "pico-02"}},
		{"a node patches another node's status", req{method: "PATCH", path: "/api/v1/nodes/pico-02/status", token: "pico1-token", contentType: strategicPatch, body: readyPatch},
			`nodes "pico-02" is forbidden: User "system:node:pico-01" ` + node + ` cannot patch resource "nodes/status" in API group "" at the cluster scope: node "pico-01" cannot patch node "pico-02"`,
			metav1.StatusDetails{Kind: "nodes", Name: "pico-02"}},
		{"a node deletes itself", req{method: "DELETE", path: "/api/v1/nodes/pico-01", token: "pico1-token"},
			`nodes "pico-01" is forbidden: User "system:node:pico-01" ` + node + ` cannot delete resource "nodes" in API group "" at the cluster scope`,
			metav1.StatusDetails{Kind: "nodes", Name: "pico-01"}},
		{"a user with no role lists nodes", req{method: "GET", path: "/api/v1/nodes", token: "norole-token"},
			`nodes is forbidden: User "carol" ` + none + ` cannot list resource "nodes" in API group "" at the cluster scope`,
			metav1.StatusDetails{Kind: "nodes"}},
		{"a user with no role reads the audit log", req{method: "GET", path: "/apis/herd.dev/v1/auditevents", token: "norole-token"},
			`auditevents.herd.dev is forbidden: User "carol" ` + none + ` cannot list resource "auditevents" in API group "herd.dev" at the cluster scope`,
			metav1.StatusDetails{Group: "herd.dev", Kind: "auditevents"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustSend(t, nil, base, http.StatusForbidden, tt.rq)
			var st metav1.Status
			if err := json.Unmarshal(a.body, &st); err != nil {
				t.Fatal(err)
			}
			if st.Kind != "Status" || st.Reason != metav1.StatusReasonForbidden || st.Code != http.StatusForbidden || st.Status != metav1.StatusFailure {
				t.Errorf("not kube-apiserver's Forbidden Status: %s", a.body)
			}
			if st.Message != tt.message {
				t.Errorf("message\n %s\nwant\n %s", st.Message, tt.message)
			}
			if diff := cmp.Diff(&tt.details, st.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRoleOfSaysEveryRole: a user in more than one of herd's groups is
// told each role it has.
func TestRoleOfSaysEveryRole(t *testing.T) {
	for _, tt := range []struct {
		name string
		u    User
		want string
	}{
		{"admin", User{Name: "alice", Groups: []string{GroupMasters}}, "role admin: may do everything"},
		{"viewer and node", User{Name: NodeUserPrefix + "pico-01", Groups: []string{GroupNodes, GroupViewers}},
			`roles viewer: may get, list and watch every resource; node "pico-01": may register and report for node "pico-01" only, renew its own lease, run the pods bound to it and read the ConfigMaps granted to it`},
		{"a node's name without the nodes group", User{Name: NodeUserPrefix + "pico-01"}, "no herd role: may read only discovery, /version and the health endpoints; herd's roles are the groups herd:admins, herd:viewers and system:nodes"},
	} {
		if got := roleOf(tt.u); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
