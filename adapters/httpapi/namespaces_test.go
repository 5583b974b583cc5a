package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// TestNamespaceLifecycle: an operator creates a namespace, reads and
// lists it, and deletes it: it turns Terminating at once (200 with the
// object), takes no new objects meanwhile, and the system namespaces
// cannot be deleted.
func TestNamespaceLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL

	var ns corev1.Namespace
	a := mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces", body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{"team":"web"}}}`})
	if err := json.Unmarshal(a.body, &ns); err != nil {
		t.Fatal(err)
	}
	if ns.Name != "shop" || ns.Status.Phase != corev1.NamespaceActive || ns.Labels["team"] != "web" ||
		ns.Labels[corev1.LabelMetadataName] != "shop" || ns.UID == "" || ns.ResourceVersion == "" {
		t.Fatalf("created namespace %+v", ns)
	}
	a = mustSend(t, nil, base, http.StatusConflict, req{method: "POST", path: "/api/v1/namespaces", body: `{"metadata":{"name":"shop"}}`})
	if reason, msg := a.status(t); reason != "AlreadyExists" || msg != `namespaces "shop" already exists` {
		t.Errorf("second create: %s %q", reason, msg)
	}
	mustSend(t, nil, base, http.StatusUnprocessableEntity, req{method: "POST", path: "/api/v1/namespaces", body: `{"metadata":{"name":"Shop!"}}`})
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/namespaces/shop"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: "/api/v1/namespaces/nothing"})

	lists := []struct{ path, want string }{
		{"/api/v1/namespaces", "default kube-node-lease kube-public kube-system shop"},
		{"/api/v1/namespaces?labelSelector=team%3Dweb", "shop"},
		{"/api/v1/namespaces?fieldSelector=metadata.name%3Dkube-system", "kube-system"},
		{"/api/v1/namespaces?fieldSelector=status.phase%3DTerminating", ""},
	}
	for _, l := range lists {
		if got := namespaceNames(t, mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: l.path})); got != l.want {
			t.Errorf("GET %s: %q, want %q", l.path, got, l.want)
		}
	}

	// A system namespace stays.
	a = mustSend(t, nil, base, http.StatusForbidden, req{method: "DELETE", path: "/api/v1/namespaces/kube-system"})
	if reason, msg := a.status(t); reason != "Forbidden" || msg != `namespaces "kube-system" is forbidden: this namespace may not be deleted` {
		t.Errorf("delete kube-system: %s %q", reason, msg)
	}
	// Refused before its resourceVersion is looked at, as kube-apiserver's
	// admission refuses it before storage compares preconditions.
	a = mustSend(t, nil, base, http.StatusForbidden, req{method: "DELETE", path: "/api/v1/namespaces/kube-system",
		body: `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"999999"}}`})
	if reason, _ := a.status(t); reason != "Forbidden" {
		t.Errorf("stale delete of kube-system: %s, want Forbidden", reason)
	}

	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces/shop/configmaps", body: `{"metadata":{"name":"cfg"}}`})
	a = mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: "/api/v1/namespaces/shop"})
	ns = corev1.Namespace{}
	if err := json.Unmarshal(a.body, &ns); err != nil {
		t.Fatal(err)
	}
	if ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Errorf("deleted namespace %+v, want it Terminating with a deletion timestamp", ns.Status)
	}
	if got := namespaceNames(t, mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/namespaces?fieldSelector=status.phase%3DTerminating"})); got != "shop" {
		t.Errorf("terminating namespaces: %q", got)
	}
	// Deleting it again changes nothing and answers it as it stands.
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: "/api/v1/namespaces/shop"})

	before := api.head(t)
	a = mustSend(t, nil, base, http.StatusForbidden, req{method: "POST", path: "/api/v1/namespaces/shop/pods", body: podBody("web")})
	if reason, msg := a.status(t); reason != "Forbidden" || msg != `pods "web" is forbidden: unable to create new content in namespace shop because it is being terminated` {
		t.Errorf("pod in a terminating namespace: %s %q", reason, msg)
	}
	var refused metav1.Status
	if err := json.Unmarshal(a.body, &refused); err != nil {
		t.Fatal(err)
	}
	if !apierrors.HasStatusCause(&apierrors.StatusError{ErrStatus: refused}, corev1.NamespaceTerminatingCause) {
		t.Errorf("the refusal %+v gives no NamespaceTerminating cause, which controllers look for", refused.Details)
	}
	a = mustSend(t, nil, base, http.StatusForbidden, req{method: "POST", path: "/api/v1/namespaces/shop/configmaps", body: `{"metadata":{"name":"more"}}`})
	if reason, _ := a.status(t); reason != "Forbidden" {
		t.Errorf("ConfigMap in a terminating namespace: %s", reason)
	}
	if after := api.head(t); after != before {
		t.Errorf("refused creates moved the log head from %d to %d", before, after)
	}
}

// TestCreatingInAMissingNamespaceIsNotFound: a pod, a ConfigMap or a lease
// in a namespace that does not exist is refused with 404 naming the
// namespace, as kube-apiserver refuses it, and nothing is written.
func TestCreatingInAMissingNamespaceIsNotFound(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	before := api.head(t)
	for _, rq := range []req{
		{method: "POST", path: "/api/v1/namespaces/nowhere/pods", body: podBody("web")},
		{method: "POST", path: "/api/v1/namespaces/nowhere/configmaps", body: `{"metadata":{"name":"cfg"}}`},
		{method: "POST", path: "/apis/coordination.k8s.io/v1/namespaces/nowhere/leases", body: `{"metadata":{"name":"lock"}}`},
	} {
		a := mustSend(t, nil, base, http.StatusNotFound, rq)
		if reason, msg := a.status(t); reason != "NotFound" || msg != `namespaces "nowhere" not found` {
			t.Errorf("POST %s: %s %q", rq.path, reason, msg)
		}
	}
	if after := api.head(t); after != before {
		t.Errorf("refused creates moved the log head from %d to %d", before, after)
	}
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces/default/pods", body: podBody("web")})
}

// TestNamespaceTable: kubectl get ns prints NAME, STATUS, AGE.
func TestNamespaceTable(t *testing.T) {
	base := newTestAPI(t, nil).serve(t).URL
	tbl := tableOf(t, base, "/api/v1/namespaces")
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	if strings.Join(cols, ",") != "Name,Status,Age" || len(tbl.Rows) != len(domain.SystemNamespaces) {
		t.Fatalf("table %v with %d rows", cols, len(tbl.Rows))
	}
	if got := tbl.Rows[0].Cells; got[0] != "default" || got[1] != "Active" {
		t.Errorf("first row %v", got)
	}
}

func namespaceNames(t *testing.T, a answer) string {
	t.Helper()
	var l corev1.NamespaceList
	if err := json.Unmarshal(a.body, &l); err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(l.Items))
	for i, ns := range l.Items {
		names[i] = ns.Name
	}
	return strings.Join(names, " ")
}

func podBody(name string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
}
