package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRouteInfoComesFromTheMatchedRoute: the verb, group, namespace,
// resource, name and subresource are read off the pattern the mux
// matched, with the wildcards' values; a path no route serves has no
// resource.
func TestRouteInfoComesFromTheMatchedRoute(t *testing.T) {
	mux := http.NewServeMux()
	var got requestInfo
	capture := func(w http.ResponseWriter, r *http.Request) { got = routeInfo(r) }
	for _, p := range []string{
		"GET /api/v1/nodes", "GET /api/v1/nodes/{name}", "PATCH /api/v1/nodes/{name}/status",
		"GET /api/v1/namespaces/{name}", "DELETE /api/v1/namespaces/{name}",
		"POST /api/v1/namespaces/{namespace}/pods", "POST /api/v1/namespaces/{namespace}/pods/{name}/eviction",
		"PUT /apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}",
		"DELETE /apis/herd.dev/v1/nodes/{name}/taints/{key...}",
		"GET /healthz", "/",
	} {
		mux.HandleFunc(p, capture)
	}
	for _, tc := range []struct {
		method, path string
		want         requestInfo
	}{
		{"GET", "/api/v1/nodes", requestInfo{Verb: "list", Resource: "nodes"}},
		{"GET", "/api/v1/nodes/web-01", requestInfo{Verb: "get", Resource: "nodes", Name: "web-01"}},
		{"PATCH", "/api/v1/nodes/web-01/status", requestInfo{Verb: "patch", Resource: "nodes", Name: "web-01", Subresource: "status"}},
		{"GET", "/api/v1/namespaces/shop", requestInfo{Verb: "get", Resource: "namespaces", Name: "shop"}},
		{"DELETE", "/api/v1/namespaces/shop", requestInfo{Verb: "delete", Resource: "namespaces", Name: "shop"}},
		{"POST", "/api/v1/namespaces/shop/pods", requestInfo{Verb: "create", Namespace: "shop", Resource: "pods"}},
		{"POST", "/api/v1/namespaces/shop/pods/web/eviction", requestInfo{Verb: "create", Namespace: "shop", Resource: "pods", Name: "web", Subresource: "eviction"}},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/web-01",
			requestInfo{Verb: "update", Group: "coordination.k8s.io", Namespace: "kube-node-lease", Resource: "leases", Name: "web-01"}},
		{"DELETE", "/apis/herd.dev/v1/nodes/web-01/taints/node.kubernetes.io/unreachable",
			requestInfo{Verb: "delete", Group: "herd.dev", Resource: "nodes", Name: "web-01", Subresource: "taints/node.kubernetes.io/unreachable"}},
		{"GET", "/healthz", requestInfo{Verb: "get"}},
		{"POST", "/api/v1/nodes/web-01/bogus", requestInfo{Verb: "post"}},
	} {
		got = requestInfo{}
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(t.Context(), tc.method, tc.path, nil))
		tc.want.Path = tc.path
		if got != tc.want {
			t.Errorf("%s %s: %+v, want %+v", tc.method, tc.path, got, tc.want)
		}
	}
}
