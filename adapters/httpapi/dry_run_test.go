package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDryRunChangesNothing: every write of a kind the shared handlers
// serve runs with ?dryRun=All as kube-apiserver runs it — decided, checked
// and answered with the object as it would be, and nothing written — and a
// write herd cannot run dry is refused, changing nothing either.
func TestDryRunChangesNothing(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"kept","labels":{"a":"1"}},"data":{"k":"v"}}`})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("web-01")})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces/default/pods",
		body: `{"metadata":{"name":"nginx"},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}`})
	kept := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: cmPath + "/kept"})
	var before corev1.ConfigMap
	if err := json.Unmarshal(kept.body, &before); err != nil {
		t.Fatal(err)
	}
	eviction, err := json.Marshal(policyv1.Eviction{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"}, ObjectMeta: metav1.ObjectMeta{Name: "nginx"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		rq   req
		code int
		// check looks at the answer, when set.
		check func(t *testing.T, a answer)
	}{
		{"create", req{method: "POST", path: cmPath + "?dryRun=All", body: `{"metadata":{"name":"dry"},"data":{"k":"v"}}`}, http.StatusCreated,
			func(t *testing.T, a answer) {
				var cm corev1.ConfigMap
				if err := json.Unmarshal(a.body, &cm); err != nil || cm.Name != "dry" || cm.Data["k"] != "v" || cm.ResourceVersion != "" {
					t.Errorf("the ConfigMap as it would be: %s (%v)", a.body, err)
				}
			}},
		{"create that the domain refuses", req{method: "POST", path: cmPath + "?dryRun=All", body: `{"metadata":{"name":"kept"}}`}, http.StatusConflict, nil},
		{"update", req{method: "PUT", path: cmPath + "/kept?dryRun=All", body: `{"metadata":{"name":"kept"},"data":{"k":"w"}}`}, http.StatusOK,
			func(t *testing.T, a answer) {
				var cm corev1.ConfigMap
				if err := json.Unmarshal(a.body, &cm); err != nil || cm.Data["k"] != "w" || cm.ResourceVersion != before.ResourceVersion {
					t.Errorf("the ConfigMap as it would be, at its resourceVersion %s: %s (%v)", before.ResourceVersion, a.body, err)
				}
			}},
		{"patch", req{method: "PATCH", path: cmPath + "/kept?dryRun=All", contentType: mergePatch, body: `{"metadata":{"labels":{"b":"2"}}}`}, http.StatusOK,
			func(t *testing.T, a answer) {
				var cm corev1.ConfigMap
				if err := json.Unmarshal(a.body, &cm); err != nil || cm.Labels["a"] != "1" || cm.Labels["b"] != "2" {
					t.Errorf("the ConfigMap as the patch would leave it: %s (%v)", a.body, err)
				}
			}},
		{"delete", req{method: "DELETE", path: cmPath + "/kept?dryRun=All"}, http.StatusOK, nil},
		{"delete with the dry run in its options, as kubectl delete --dry-run=server sends it", req{method: "DELETE", path: cmPath + "/kept",
			body: `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}`}, http.StatusOK, nil},
		{"release of a device binding with the dry run in its options, which herd cannot run dry", req{method: "DELETE", path: "/apis/herd.dev/v1/devicebindings/pico-01",
			body: `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}`}, http.StatusBadRequest, nil},
		{"a node's labels", req{method: "PATCH", path: "/api/v1/nodes/web-01?dryRun=All", contentType: mergePatch, body: `{"metadata":{"labels":{"zone":"a"}}}`}, http.StatusOK, nil},
		{"a pod's deletion", req{method: "DELETE", path: "/api/v1/namespaces/default/pods/nginx?dryRun=All"}, http.StatusOK, nil},
		{"an eviction, as kubectl drain --dry-run=server sends it", req{method: "POST", path: "/api/v1/namespaces/default/pods/nginx/eviction?dryRun=All", body: string(eviction)}, http.StatusCreated, nil},
		{"a node's heartbeat, which herd cannot run dry", req{method: "PATCH", path: "/api/v1/nodes/web-01/status?dryRun=All", contentType: strategicPatch,
			body: `{"status":{"conditions":[{"type":"Ready","status":"False"}]}}`}, http.StatusBadRequest, nil},
		{"a drain of herd's own", req{method: "POST", path: "/apis/herd.dev/v1/nodes/web-01/drain?dryRun=All"}, http.StatusOK, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := api.head(t)
			a := mustSend(t, nil, base, tt.code, tt.rq)
			if tt.check != nil {
				tt.check(t, a)
			}
			if after := api.head(t); after != head {
				t.Errorf("a dry run moved the log from %d to %d", head, after)
			}
		})
	}
	now := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: cmPath + "/kept"})
	if string(now.body) != string(kept.body) {
		t.Errorf("the ConfigMap changed:\n%s\nwas\n%s", now.body, kept.body)
	}
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: cmPath + "/dry"})
}
