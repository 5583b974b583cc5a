package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// guarded sends one request with the given headers (Host among them) and
// returns the answer.
func guarded(t *testing.T, base, method, path, ct, body string, headers map[string]string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequestWithContext(t.Context(), method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	for k, v := range headers {
		if k == "Host" {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{code: resp.StatusCode, body: bytes.TrimSpace(data)}
}

// nodeState is the node's drain and taints as herd answers them.
func nodeState(t *testing.T, base, name string) (unschedulable bool, taints int) {
	t.Helper()
	a := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/" + name})
	var n corev1.Node
	if err := json.Unmarshal(a.body, &n); err != nil {
		t.Fatal(err)
	}
	return n.Spec.Unschedulable, len(n.Spec.Taints)
}

// TestHerdsOwnWritesRefuseBodiesBrowsersSendFreely: a body a browser
// sends across origins without asking first (text/plain, a form) is
// refused with 415 naming its type and JSON on every write of herd's own
// group — drain, taints, heartbeat, registration — as on Kubernetes'
// kinds, and the log does not move; JSON, or no body where none is
// needed, still works.
func TestHerdsOwnWritesRefuseBodiesBrowsersSendFreely(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("n1")})
	writes := []struct{ name, method, path, body string }{
		{"drain", "POST", "/apis/herd.dev/v1/nodes/n1/drain", `{}`},
		{"undrain", "DELETE", "/apis/herd.dev/v1/nodes/n1/drain", `{}`},
		{"taint", "POST", "/apis/herd.dev/v1/nodes/n1/taints", `{"key":"k","effect":"NoExecute"}`},
		{"heartbeat", "POST", "/apis/herd.dev/v1/nodes/n1/heartbeat", `{"metrics":{}}`},
		{"registration", "PUT", "/apis/herd.dev/v1/nodes/n1/registration", nodeJSON("n1")},
		{"node status", "PUT", "/api/v1/nodes/n1/status", nodeJSON("n1")},
		{"node", "POST", "/api/v1/nodes", nodeJSON("n2")},
		{"node delete", "DELETE", "/api/v1/nodes/n1", `{}`},
	}
	for _, w := range writes {
		for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
			t.Run(w.name+" as "+ct, func(t *testing.T) {
				before := api.head(t)
				a := guarded(t, base, w.method, w.path, ct, w.body, nil)
				if a.code != http.StatusUnsupportedMediaType {
					t.Fatalf("answer %d %s, want 415", a.code, a.body)
				}
				reason, msg := a.status(t)
				mt, _, _ := strings.Cut(ct, ";")
				if reason != string(metav1.StatusReasonUnsupportedMediaType) || !strings.Contains(msg, mt) || !strings.Contains(msg, "application/json") {
					t.Errorf("Status %s %q does not name %s and application/json", reason, msg, mt)
				}
				if after := api.head(t); after != before {
					t.Errorf("the log moved from %d to %d", before, after)
				}
			})
		}
	}
	// A PATCH in no patch type is 415 too, naming the patch types.
	a := guarded(t, base, "PATCH", "/api/v1/nodes/n1/status", "text/plain", readyPatch, nil)
	if _, msg := a.status(t); a.code != http.StatusUnsupportedMediaType || !strings.Contains(msg, mergePatch) {
		t.Errorf("PATCH as text/plain: %d %s", a.code, a.body)
	}
	if unschedulable, taints := nodeState(t, base, "n1"); unschedulable || taints != 0 {
		t.Fatalf("n1 changed: unschedulable %v, %d taints", unschedulable, taints)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "POST", path: "/apis/herd.dev/v1/nodes/n1/drain"})
	mustSend(t, nil, base, http.StatusOK, req{method: "POST", path: "/apis/herd.dev/v1/nodes/n1/taints", body: `{"key":"k","effect":"NoSchedule"}`})
	if unschedulable, taints := nodeState(t, base, "n1"); !unschedulable || taints == 0 {
		t.Fatalf("n1 not drained and tainted by JSON: unschedulable %v, %d taints", unschedulable, taints)
	}
}

// TestAnonymousHerdAnswersOnlyItsOwnHostNames: without credentials herd
// answers localhost and loopback addresses, with any port, and refuses
// any other Host (a name an attacker rebinds to loopback) with 403
// before anything happens; with a token file every Host is answered, and
// a configured name is answered too.
func TestAnonymousHerdAnswersOnlyItsOwnHostNames(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("n1")})
	for _, tc := range []struct {
		host string
		code int
	}{
		{"localhost", 200}, {"LOCALHOST:8080", 200}, {"127.0.0.1:1", 200}, {"127.9.9.9", 200}, {"[::1]:8080", 200}, {"localhost.", 200},
		{"evil.example", 403}, {"evil.example:8080", 403}, {"localhost.evil.example", 403}, {"127.0.0.1.nip.io:8080", 403}, {"10.0.0.1:8080", 403},
	} {
		t.Run(tc.host, func(t *testing.T) {
			before := api.head(t)
			a := guarded(t, base, "POST", "/apis/herd.dev/v1/nodes/n1/drain", "", "", map[string]string{"Host": tc.host})
			if a.code != tc.code {
				t.Fatalf("Host %s: %d %s, want %d", tc.host, a.code, a.body, tc.code)
			}
			if tc.code == 403 {
				if _, msg := a.status(t); !strings.Contains(msg, tc.host) || !strings.Contains(msg, "--token-auth-file") {
					t.Errorf("the refusal %q does not name the host and the way out", msg)
				}
				if after := api.head(t); after != before {
					t.Errorf("the log moved from %d to %d", before, after)
				}
				get := guarded(t, base, "GET", "/api/v1/nodes", "", "", map[string]string{"Host": tc.host})
				if get.code != 403 {
					t.Errorf("a read under Host %s: %d, want 403", tc.host, get.code)
				}
			}
		})
	}

	named := newTestAPI(t, nil)
	named.cfg.AnonymousHosts = []string{"herd.lan"}
	nbase := named.serve(t).URL
	if a := guarded(t, nbase, "GET", "/api/v1/nodes", "", "", map[string]string{"Host": "herd.lan:8080"}); a.code != 200 {
		t.Errorf("the configured name: %d %s", a.code, a.body)
	}

	tokens, tbase := newAuthAPI(t)
	_ = tokens
	a := guarded(t, tbase, "GET", "/api/v1/nodes", "", "", map[string]string{"Host": "herd.example.com", "Authorization": "Bearer admin-token"})
	if a.code != 200 {
		t.Errorf("with a token file, any Host: %d %s", a.code, a.body)
	}
}

// TestCrossOriginWritesAreRefused: a browser's write from a page of
// another origin (another loopback address, another port) is 403 and
// changes nothing, whether the browser says so with Sec-Fetch-Site or
// only with Origin; the same origin (the web view), and clients that send
// neither header (kubectl, client-go, herd's CLI), write; reads from
// anywhere are answered.
func TestCrossOriginWritesAreRefused(t *testing.T) {
	api := newTestAPI(t, nil)
	srv := api.serve(t)
	base := srv.URL
	self := strings.TrimPrefix(base, "http://")
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("n1")})
	drain := "/apis/herd.dev/v1/nodes/n1/drain"
	for _, tc := range []struct {
		name    string
		headers map[string]string
	}{
		{"another loopback address", map[string]string{"Origin": "http://127.0.0.2:" + strings.Split(self, ":")[1]}},
		{"another port", map[string]string{"Origin": "http://127.0.0.1:1"}},
		{"an opaque origin", map[string]string{"Origin": "null"}},
		{"a cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"a same-site fetch", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := api.head(t)
			for _, ct := range []string{"", "application/json"} {
				a := guarded(t, base, "POST", drain, ct, `{}`, tc.headers)
				if a.code != http.StatusForbidden {
					t.Fatalf("answer %d %s, want 403", a.code, a.body)
				}
				if reason, msg := a.status(t); reason != string(metav1.StatusReasonForbidden) || !strings.Contains(msg, "cross-origin") {
					t.Errorf("Status %s %q does not say cross-origin", reason, msg)
				}
			}
			if after := api.head(t); after != before {
				t.Errorf("the log moved from %d to %d", before, after)
			}
			if a := guarded(t, base, "GET", "/api/v1/nodes/n1", "", "", tc.headers); a.code != 200 {
				t.Errorf("a cross-origin read: %d %s", a.code, a.body)
			}
		})
	}
	if unschedulable, _ := nodeState(t, base, "n1"); unschedulable {
		t.Fatal("n1 was drained across origins")
	}
	a := guarded(t, base, "POST", drain, "application/json", `{}`, map[string]string{"Origin": base, "Sec-Fetch-Site": "same-origin"})
	if a.code != http.StatusOK {
		t.Fatalf("a same-origin drain: %d %s", a.code, a.body)
	}
	if unschedulable, _ := nodeState(t, base, "n1"); !unschedulable {
		t.Fatal("the same-origin drain did not drain n1")
	}
}

// TestKindsHerdDoesNotHaveAreNotFoundWhateverTheBody: a write to a kind
// herd has no route for is the 404 kube-apiserver answers, in any body
// type (client-go and kubectl write protobuf, a browser a form), not a
// 415 that blames the body; the kinds herd names say why it has none.
func TestKindsHerdDoesNotHaveAreNotFoundWhateverTheBody(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	for _, tc := range []struct{ path, says string }{
		{"/api/v1/namespaces/default/resourcequotas", "the server could not find the requested resource"},
		{"/apis/example.com/v1/namespaces/default/widgets", "the server could not find the requested resource"},
		{"/api/v1/namespaces/default/secrets", "herd has no Secrets"},
		{"/api/v1/namespaces/default/serviceaccounts", "herd has no ServiceAccounts"},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", "herd has no RBAC objects"},
		{"/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", "herd has no HorizontalPodAutoscalers"},
	} {
		for _, ct := range []string{"application/vnd.kubernetes.protobuf", "application/json", "text/plain"} {
			t.Run(tc.path+" as "+ct, func(t *testing.T) {
				before := api.head(t)
				a := guarded(t, base, "POST", tc.path, ct, `{"metadata":{"name":"x"}}`, nil)
				if reason, msg := a.status(t); a.code != http.StatusNotFound || reason != string(metav1.StatusReasonNotFound) || !strings.Contains(msg, tc.says) {
					t.Errorf("answer %d %s %q, want 404 NotFound saying %q", a.code, reason, msg, tc.says)
				}
				if after := api.head(t); after != before {
					t.Errorf("the log moved from %d to %d", before, after)
				}
			})
		}
	}
}
