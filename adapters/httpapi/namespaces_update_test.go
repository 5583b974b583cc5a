package httpapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNamespaceUpdateAndPatch: an operator labels and annotates a
// namespace as kubectl label, annotate and edit do (PUT and the three
// PATCH types), and a refused change appends nothing. herd keeps the
// kubernetes.io/metadata.name label equal to the name whatever the client
// sends, as kube-apiserver does.
func TestNamespaceUpdateAndPatch(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	ns := namespaceOf(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces",
		body: `{"metadata":{"name":"shop","labels":{"team":"web"}}}`}))

	// PUT: labels and annotations become what the body says; a client's
	// metadata.name label is herd's to set.
	ns.Labels = map[string]string{"team": "shop", corev1.LabelMetadataName: "elsewhere"}
	ns.Annotations = map[string]string{"owner": "ann"}
	got := namespaceOf(t, mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: "/api/v1/namespaces/shop", body: jsonOf(t, ns)}))
	wantMeta(t, "PUT", got, map[string]string{"team": "shop", corev1.LabelMetadataName: "shop"}, map[string]string{"owner": "ann"})
	if got.ResourceVersion == ns.ResourceVersion || got.UID != ns.UID || got.Status.Phase != corev1.NamespaceActive {
		t.Errorf("after PUT: resourceVersion %s (was %s), uid %s (was %s), phase %s", got.ResourceVersion, ns.ResourceVersion, got.UID, ns.UID, got.Status.Phase)
	}
	if names := namespaceNames(t, mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/namespaces?labelSelector=team%3Dshop"})); names != "shop" {
		t.Errorf("namespaces with team=shop: %q", names)
	}

	// The same PUT again changes nothing and appends nothing.
	head := api.head(t)
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: "/api/v1/namespaces/shop", body: jsonOf(t, got)})
	if after := api.head(t); after != head {
		t.Errorf("a PUT that changed nothing moved the log head from %d to %d", head, after)
	}

	patches := []struct {
		name, contentType, body string
		labels, annotations     map[string]string
	}{
		{"merge", mergePatch, `{"metadata":{"labels":{"tier":"1"}}}`,
			map[string]string{"team": "shop", "tier": "1"}, map[string]string{"owner": "ann"}},
		{"strategic", strategicPatch, `{"metadata":{"annotations":{"owner":"bob"}}}`,
			map[string]string{"team": "shop", "tier": "1"}, map[string]string{"owner": "bob"}},
		{"json", jsonPatch, `[{"op":"remove","path":"/metadata/labels/team"}]`,
			map[string]string{"tier": "1"}, map[string]string{"owner": "bob"}},
		// Removing herd's label changes nothing: herd sets it again.
		{"json without the name label", jsonPatch, `[{"op":"remove","path":"/metadata/labels/kubernetes.io~1metadata.name"}]`,
			map[string]string{"tier": "1"}, map[string]string{"owner": "bob"}},
	}
	for _, p := range patches {
		a := mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: "/api/v1/namespaces/shop?fieldValidation=Strict", contentType: p.contentType, body: p.body})
		p.labels[corev1.LabelMetadataName] = "shop"
		wantMeta(t, p.name+" patch", namespaceOf(t, a), p.labels, p.annotations)
	}
	if got := namespaceOf(t, mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/namespaces/shop"})); got.Labels["tier"] != "1" || got.Annotations["owner"] != "bob" {
		t.Errorf("GET after the patches: %v %v", got.Labels, got.Annotations)
	}

	head = api.head(t)
	refusals := []struct {
		name   string
		rq     req
		code   int
		reason metav1.StatusReason
	}{
		{"PUT of a stale version", req{method: "PUT", path: "/api/v1/namespaces/shop", body: jsonOf(t, ns)}, http.StatusConflict, metav1.StatusReasonConflict},
		{"PUT under another name", req{method: "PUT", path: "/api/v1/namespaces/shop", body: `{"metadata":{"name":"store"}}`}, http.StatusBadRequest, metav1.StatusReasonBadRequest},
		{"PUT of another kind", req{method: "PUT", path: "/api/v1/namespaces/shop", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shop"}}`}, http.StatusBadRequest, metav1.StatusReasonBadRequest},
		{"PUT of a bad label", req{method: "PUT", path: "/api/v1/namespaces/shop", body: `{"metadata":{"name":"shop","labels":{"team":"a b"}}}`}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid},
		{"PUT of another uid", req{method: "PUT", path: "/api/v1/namespaces/shop", body: `{"metadata":{"name":"shop","uid":"not-its-uid"}}`}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid},
		{"PUT of a missing namespace", req{method: "PUT", path: "/api/v1/namespaces/nowhere", body: `{"metadata":{"name":"nowhere"}}`}, http.StatusNotFound, metav1.StatusReasonNotFound},
		// A dry run of a PUT is served now (TestDryRunChangesNothing), but
		// it is refused as the PUT itself would be.
		{"PUT of a stale version as a dry run", req{method: "PUT", path: "/api/v1/namespaces/shop?dryRun=All", body: jsonOf(t, ns)}, http.StatusConflict, metav1.StatusReasonConflict},
		{"PATCH of the name", req{method: "PATCH", path: "/api/v1/namespaces/shop", contentType: mergePatch, body: `{"metadata":{"name":"store"}}`}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid},
		{"PATCH of a stale version", req{method: "PATCH", path: "/api/v1/namespaces/shop", contentType: mergePatch, body: `{"metadata":{"resourceVersion":"1","labels":{"x":"y"}}}`}, http.StatusConflict, metav1.StatusReasonConflict},
		{"PATCH of a bad annotation", req{method: "PATCH", path: "/api/v1/namespaces/shop", contentType: mergePatch, body: `{"metadata":{"annotations":{"a b":"x"}}}`}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid},
		{"PATCH of a field namespaces lack", req{method: "PATCH", path: "/api/v1/namespaces/shop?fieldValidation=Strict", contentType: mergePatch, body: `{"spec":{"colour":"red"}}`}, http.StatusBadRequest, metav1.StatusReasonBadRequest},
		// A JSON patch whose operation does not apply is 422 Invalid, as
		// kube-apiserver answers it (endpoints/handlers/patch.go) and as
		// every kind's PATCH now answers it; namespaces used to say 400.
		{"PATCH that does not apply", req{method: "PATCH", path: "/api/v1/namespaces/shop", contentType: jsonPatch, body: `[{"op":"remove","path":"/metadata/labels/nothing"}]`}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid},
		{"PATCH by server-side apply", req{method: "PATCH", path: "/api/v1/namespaces/shop", contentType: "application/apply-patch+yaml", body: `metadata: {labels: {x: y}}`}, http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType},
		{"PATCH of a missing namespace", req{method: "PATCH", path: "/api/v1/namespaces/nowhere", contentType: mergePatch, body: `{"metadata":{"labels":{"x":"y"}}}`}, http.StatusNotFound, metav1.StatusReasonNotFound},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			a := mustSend(t, nil, base, r.code, r.rq)
			if reason, msg := a.status(t); reason != string(r.reason) || msg == "" {
				t.Errorf("status %s %q, want %s with a message", reason, msg, r.reason)
			}
		})
	}
	if after := api.head(t); after != head {
		t.Errorf("refused updates moved the log head from %d to %d", head, after)
	}
	a := mustSend(t, nil, base, http.StatusNotFound, req{method: "PUT", path: "/api/v1/namespaces/nowhere", body: `{"metadata":{"name":"nowhere"}}`})
	if _, msg := a.status(t); msg != `namespaces "nowhere" not found` {
		t.Errorf("PUT of a missing namespace says %q", msg)
	}
	a = mustSend(t, nil, base, http.StatusUnprocessableEntity, req{method: "PATCH", path: "/api/v1/namespaces/shop", contentType: mergePatch, body: `{"metadata":{"name":"store"}}`})
	if _, msg := a.status(t); msg != `Namespace "shop" is invalid: metadata.name: Invalid value: "store": field is immutable` {
		t.Errorf("PATCH of the name says %q", msg)
	}

	// A terminating namespace takes no new content, but its labels may
	// still change, as in Kubernetes.
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces", body: `{"metadata":{"name":"old"}}`})
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: "/api/v1/namespaces/old"})
	got = namespaceOf(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: "/api/v1/namespaces/old", contentType: mergePatch, body: `{"metadata":{"labels":{"reason":"retired"}}}`}))
	if got.Labels["reason"] != "retired" || got.Status.Phase != corev1.NamespaceTerminating || got.DeletionTimestamp == nil {
		t.Errorf("a terminating namespace patched: %v %s", got.Labels, got.Status.Phase)
	}
}

// TestNamespaceDiscoveryOffersUpdateAndPatch: kubectl label, annotate and
// edit look for these verbs.
func TestNamespaceDiscoveryOffersUpdateAndPatch(t *testing.T) {
	base := newTestAPI(t, nil).serve(t).URL
	var list metav1.APIResourceList
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1"}).body, &list); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == "namespaces" })
	if i < 0 {
		t.Fatal("no namespaces in /api/v1")
	}
	if verbs := list.APIResources[i].Verbs; !slices.Contains(verbs, "update") || !slices.Contains(verbs, "patch") {
		t.Errorf("namespaces verbs %v, want update and patch among them", verbs)
	}
}

func namespaceOf(t *testing.T, a answer) corev1.Namespace {
	t.Helper()
	var ns corev1.Namespace
	if err := json.Unmarshal(a.body, &ns); err != nil {
		t.Fatal(err)
	}
	return ns
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func wantMeta(t *testing.T, what string, ns corev1.Namespace, labels, annotations map[string]string) {
	t.Helper()
	if !maps.Equal(ns.Labels, labels) || !maps.Equal(ns.Annotations, annotations) {
		t.Errorf("%s: labels %v annotations %v; want %v %v", what, ns.Labels, ns.Annotations, labels, annotations)
	}
}

// TestOnlyAnOperatorChangesANamespace: a viewer or a node may not label a
// namespace; an administrator may.
func TestOnlyAnOperatorChangesANamespace(t *testing.T) {
	_, base := newAuthAPI(t)
	label := `{"metadata":{"labels":{"team":"web"}}}`
	for _, tc := range []struct {
		name string
		rq   req
		code int
	}{
		{"viewer patches none", req{method: "PATCH", path: "/api/v1/namespaces/default", token: "viewer-token", contentType: mergePatch, body: label}, 403},
		{"viewer puts none", req{method: "PUT", path: "/api/v1/namespaces/default", token: "viewer-token", body: `{"metadata":{"name":"default"}}`}, 403},
		{"node patches none", req{method: "PATCH", path: "/api/v1/namespaces/default", token: "pico1-token", contentType: mergePatch, body: label}, 403},
		{"node puts none", req{method: "PUT", path: "/api/v1/namespaces/default", token: "pico1-token", body: `{"metadata":{"name":"default"}}`}, 403},
		{"admin patches", req{method: "PATCH", path: "/api/v1/namespaces/default", token: "admin-token", contentType: mergePatch, body: label}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if a := send(t, nil, base, tc.rq); a.code != tc.code {
				t.Errorf("%s %s: %d %s, want %d", tc.rq.method, tc.rq.path, a.code, a.body, tc.code)
			}
		})
	}
}
