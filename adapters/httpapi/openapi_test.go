package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// openAPIRoot reads herd's OpenAPI v3 documents as kubectl does: the
// index at /openapi/v3, then each document at the URL it names.
func openAPIRoot(t *testing.T, base string) openapi3.Root {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: base, BearerToken: "viewer-token"})
	if err != nil {
		t.Fatal(err)
	}
	return openapi3.NewRoot(dc.OpenAPIV3())
}

// gvSpec is the document of gv, parsed as client-go parses it.
func gvSpec(t *testing.T, root openapi3.Root, gv schema.GroupVersion) *spec3.OpenAPI {
	t.Helper()
	doc, err := root.GVSpec(gv)
	if err != nil {
		t.Fatalf("the OpenAPI document of %s: %v", gv, err)
	}
	return doc
}

// schemaOf is the component schema whose x-kubernetes-group-version-kind
// names gvk, and its name.
func schemaOf(doc *spec3.OpenAPI, gvk schema.GroupVersionKind) (string, *spec.Schema) {
	for name, s := range doc.Components.Schemas {
		var gvks []map[string]string
		if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
			continue
		}
		for _, m := range gvks {
			if m["group"] == gvk.Group && m["version"] == gvk.Version && m["kind"] == gvk.Kind {
				return name, s
			}
		}
	}
	return "", nil
}

func TestOpenAPIIndexNamesEveryGroupVersionWithItsHash(t *testing.T) {
	_, base := newAuthAPI(t)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/openapi/v3", token: "viewer-token"}).body, &index); err != nil {
		t.Fatal(err)
	}
	for _, gv := range []string{"api/v1", "apis/policy/v1", "apis/metrics.k8s.io/v1beta1"} {
		u, err := url.Parse(index.Paths[gv].ServerRelativeURL)
		if err != nil || u.Path != "/openapi/v3/"+gv || len(u.Query().Get("hash")) != 128 {
			t.Errorf("%s is at %q, want /openapi/v3/%s?hash=<sha512>", gv, index.Paths[gv].ServerRelativeURL, gv)
		}
	}
}

func TestOpenAPICoreDocumentDescribesEveryKindHerdServes(t *testing.T) {
	_, base := newAuthAPI(t)
	doc := gvSpec(t, openAPIRoot(t, base), corev1.SchemeGroupVersion)

	var kinds []schema.GroupVersionKind
	for _, res := range resourcesAt((&Server{}).kinds(), corev1.SchemeGroupVersion) {
		gvk := corev1.SchemeGroupVersion.WithKind(res.Kind)
		if res.Group != "" || res.Version != "" {
			gvk = schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
		}
		kinds = append(kinds, gvk)
		if slices.Contains(res.Verbs, "list") {
			kinds = append(kinds, corev1.SchemeGroupVersion.WithKind(res.Kind+"List"))
		}
	}
	for _, kind := range []string{"Namespace", "NamespaceList", "Status", "DeleteOptions", "WatchEvent"} {
		kinds = append(kinds, corev1.SchemeGroupVersion.WithKind(kind))
	}
	for _, gvk := range kinds {
		if name, s := schemaOf(doc, gvk); s == nil || len(s.Properties) == 0 {
			t.Errorf("no schema with fields for %s (%s)", gvk, name)
		}
	}

	_, pod := schemaOf(doc, corev1.SchemeGroupVersion.WithKind("Pod"))
	if d := pod.Properties["spec"].Description; !strings.HasPrefix(d, "Specification of the desired behavior of the pod.") {
		t.Errorf("pod.spec's description %q", d)
	}
	podSpec := doc.Components.Schemas["io.k8s.api.core.v1.PodSpec"]
	if podSpec == nil || podSpec.Properties["containers"].Extensions["x-kubernetes-patch-merge-key"] != "name" {
		t.Errorf("pod.spec.containers merge by name: %+v", podSpec)
	}
	_, node := schemaOf(doc, corev1.SchemeGroupVersion.WithKind("Node"))
	if d := node.Properties["status"].Description; !strings.Contains(d, "Most recently observed status of the node.") {
		t.Errorf("node.status's description %q", d)
	}

	// Every reference resolves.
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(data), `"$ref":"#/components/schemas/`)[1:] {
		name, _, _ := strings.Cut(part, `"`)
		if doc.Components.Schemas[name] == nil {
			t.Errorf("dangling reference to %s", name)
		}
	}
}

// ref is the name of the component schema s refers to.
func ref(s *spec.Schema) string {
	if s == nil {
		return ""
	}
	return strings.TrimPrefix(s.Ref.String(), "#/components/schemas/")
}

func TestOpenAPIOperationsReferToTheirSchemas(t *testing.T) {
	_, base := newAuthAPI(t)
	doc := gvSpec(t, openAPIRoot(t, base), corev1.SchemeGroupVersion)
	const (
		pod, podList = "io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.PodList"
		status       = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
		patch        = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	)
	tests := []struct {
		name, path, method string
		// request is the schema of the body (in contentType), "" for none.
		request, contentType string
		// response is the schema of the answer of code in JSON.
		code     int
		response string
	}{
		{"list pods of a namespace", "/api/v1/namespaces/{namespace}/pods", "get", "", "", 200, podList},
		{"list pods across namespaces", "/api/v1/pods", "get", "", "", 200, podList},
		{"create a pod", "/api/v1/namespaces/{namespace}/pods", "post", pod, "*/*", 201, pod},
		{"read a pod", "/api/v1/namespaces/{namespace}/pods/{name}", "get", "", "", 200, pod},
		{"replace a pod", "/api/v1/namespaces/{namespace}/pods/{name}", "put", pod, "*/*", 200, pod},
		{"patch a pod strategically", "/api/v1/namespaces/{namespace}/pods/{name}", "patch", patch, "application/strategic-merge-patch+json", 200, pod},
		{"patch a pod by merge", "/api/v1/namespaces/{namespace}/pods/{name}", "patch", patch, "application/merge-patch+json", 200, pod},
		{"delete a pod", "/api/v1/namespaces/{namespace}/pods/{name}", "delete", "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "*/*", 200, pod},
		{"delete a node", "/api/v1/nodes/{name}", "delete", "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "*/*", 200, status},
		{"read a node's status", "/api/v1/nodes/{name}/status", "get", "", "", 200, "io.k8s.api.core.v1.Node"},
		{"evict a pod", "/api/v1/namespaces/{namespace}/pods/{name}/eviction", "post", "io.k8s.api.policy.v1.Eviction", "*/*", 201, status},
		{"bind a pod", "/api/v1/namespaces/{namespace}/pods/{name}/binding", "post", "io.k8s.api.core.v1.Binding", "*/*", 201, status},
		{"list events", "/api/v1/namespaces/{namespace}/events", "get", "", "", 200, "io.k8s.api.core.v1.EventList"},
		{"list ConfigMaps", "/api/v1/namespaces/{namespace}/configmaps", "get", "", "", 200, "io.k8s.api.core.v1.ConfigMapList"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			item := doc.Paths.Paths[tt.path]
			if item == nil {
				t.Fatalf("no path %s", tt.path)
			}
			op := map[string]*spec3.Operation{"get": item.Get, "post": item.Post, "put": item.Put, "patch": item.Patch, "delete": item.Delete}[tt.method]
			if op == nil {
				t.Fatalf("%s has no %s", tt.path, tt.method)
			}
			if tt.request != "" {
				if op.RequestBody == nil || op.RequestBody.Content[tt.contentType] == nil {
					t.Fatalf("no request body in %s", tt.contentType)
				}
				if got := ref(op.RequestBody.Content[tt.contentType].Schema); got != tt.request {
					t.Errorf("request body %s, want %s", got, tt.request)
				}
			}
			resp := op.Responses.StatusCodeResponses[tt.code]
			if resp == nil || resp.Content["application/json"] == nil {
				t.Fatalf("no %d response in JSON: %+v", tt.code, op.Responses)
			}
			if got := ref(resp.Content["application/json"].Schema); got != tt.response {
				t.Errorf("%d response %s, want %s", tt.code, got, tt.response)
			}
			if resp.Content["application/vnd.kubernetes.protobuf"] == nil {
				t.Errorf("the %d response is not offered in protobuf", tt.code)
			}
		})
	}

	// kubectl learns that herd validates fields from the PATCH of the
	// kind: every one must say so, whichever kubectl finds first.
	for path, item := range doc.Paths.Paths {
		if item.Patch == nil {
			continue
		}
		if !slices.ContainsFunc(item.Patch.Parameters, func(p *spec3.Parameter) bool { return p.Name == "fieldValidation" && p.In == "query" }) {
			t.Errorf("PATCH %s has no fieldValidation parameter", path)
		}
	}
}

// TestKubectlApplyPatchesByHerdsSchemas computes a strategic merge patch
// as kubectl apply does, from the Pod's schema herd serves, and from the
// Go type: they must agree, or kubectl apply would change what it should
// merge.
func TestKubectlApplyPatchesByHerdsSchemas(t *testing.T) {
	_, base := newAuthAPI(t)
	doc := gvSpec(t, openAPIRoot(t, base), corev1.SchemeGroupVersion)
	_, podSchema := schemaOf(doc, corev1.SchemeGroupVersion.WithKind("Pod"))
	fromSchema := strategicpatch.PatchMetaFromOpenAPIV3{Schema: podSchema, SchemaList: doc.Components.Schemas}
	fromStruct, err := strategicpatch.NewPatchMetaFromStruct(&corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	original := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx:1","env":[{"name":"A","value":"1"}]},{"name":"side","image":"busybox"}],"tolerations":[{"key":"k","operator":"Exists"}]}}`
	modified := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web","tier":"front"}},"spec":{"containers":[{"name":"app","image":"nginx:2","env":[{"name":"A","value":"2"},{"name":"B","value":"3"}]}],"tolerations":[]}}`
	current := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"},"resourceVersion":"7"},"spec":{"nodeName":"web-01","containers":[{"name":"app","image":"nginx:1","env":[{"name":"A","value":"1"}]},{"name":"side","image":"busybox"}],"tolerations":[{"key":"k","operator":"Exists"}]},"status":{"phase":"Running"}}`
	want, err := strategicpatch.CreateThreeWayMergePatch([]byte(original), []byte(modified), []byte(current), fromStruct, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := strategicpatch.CreateThreeWayMergePatch([]byte(original), []byte(modified), []byte(current), fromSchema, false)
	if err != nil {
		t.Fatalf("a patch from herd's schema: %v", err)
	}
	var g, w any
	_ = json.Unmarshal(got, &g)
	_ = json.Unmarshal(want, &w)
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	if string(gj) != string(wj) {
		t.Errorf("patch from herd's schema\n%s\nfrom the Go type\n%s", gj, wj)
	}
	if !strings.Contains(string(got), `"$setElementOrder/containers"`) {
		t.Errorf("the patch %s does not merge containers by name", got)
	}
}

func TestOpenAPIDocumentsOfOtherGroups(t *testing.T) {
	_, base := newAuthAPI(t)
	root := openAPIRoot(t, base)
	gvs, err := root.GroupVersions()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []schema.GroupVersion{corev1.SchemeGroupVersion, policyv1.SchemeGroupVersion, metricsv1beta1.SchemeGroupVersion} {
		if !slices.Contains(gvs, want) {
			t.Errorf("group-versions %v lack %s", gvs, want)
		}
	}
	metrics := gvSpec(t, root, metricsv1beta1.SchemeGroupVersion)
	for _, kind := range []string{"NodeMetrics", "NodeMetricsList", "PodMetrics", "PodMetricsList"} {
		if _, s := schemaOf(metrics, metricsv1beta1.SchemeGroupVersion.WithKind(kind)); s == nil {
			t.Errorf("metrics.k8s.io/v1beta1 has no schema for %s", kind)
		}
	}
	list := metrics.Paths.Paths["/apis/metrics.k8s.io/v1beta1/nodes"]
	if list == nil || list.Get == nil || ref(list.Get.Responses.StatusCodeResponses[200].Content["application/json"].Schema) != "io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetricsList" {
		t.Errorf("GET /apis/metrics.k8s.io/v1beta1/nodes: %+v", list)
	}
	policy := gvSpec(t, root, policyv1.SchemeGroupVersion)
	if _, s := schemaOf(policy, policyv1.SchemeGroupVersion.WithKind("Eviction")); s == nil {
		t.Error("policy/v1 has no schema for Eviction")
	}
}

func TestOpenAPIDocumentsAreCachedByTheirHash(t *testing.T) {
	_, base := newAuthAPI(t)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/openapi/v3", token: "viewer-token"}).body, &index); err != nil {
		t.Fatal(err)
	}
	hashed := index.Paths["api/v1"].ServerRelativeURL
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// get answers with the status and the header of a GET of path.
	get := func(path string, header ...string) answered {
		t.Helper()
		r, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer viewer-token")
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		resp, err := noRedirect.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return answered{StatusCode: resp.StatusCode, Header: resp.Header}
	}

	resp := get(hashed)
	etag := resp.Header.Get("Etag")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, immutable" || resp.Header.Get("Expires") == "" ||
		resp.Header.Get("Content-Type") != "application/json" || etag == "" {
		t.Errorf("the hashed URL: %d %v", resp.StatusCode, resp.Header)
	}
	if resp := get(hashed, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("a client holding the document got %d, want 304", resp.StatusCode)
	}
	if resp := get("/openapi/v3/api/v1"); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "" || resp.Header.Get("Etag") != etag {
		t.Errorf("without a hash: %d %v, want 200 with the ETag and no caching for ever", resp.StatusCode, resp.Header)
	}
	if resp := get("/openapi/v3/api/v1?hash=0123"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != hashed {
		t.Errorf("an old hash: %d to %q, want 301 to %s", resp.StatusCode, resp.Header.Get("Location"), hashed)
	}
	if resp := get(hashed, "Accept", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"); resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("the document in protobuf: %d, want 406 (herd serves it in JSON)", resp.StatusCode)
	}
	if resp := get("/openapi/v3/apis/herd.dev/v1"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a group-version herd does not describe: %d, want 404", resp.StatusCode)
	}
	a := send(t, nil, base, req{method: "GET", path: "/openapi/v3/api/v1", token: "pico1-token"})
	if a.code != 200 {
		t.Errorf("a node reading the document (discovery, as for every authenticated user): %d", a.code)
	}
	var meta metav1.Status
	if a := send(t, nil, base, req{method: "GET", path: "/openapi/v3/api/v1"}); a.code != 401 || json.Unmarshal(a.body, &meta) != nil {
		t.Errorf("anonymous: %d %s, want 401", a.code, a.body)
	}
}

// answered is the status and the header of an answer.
type answered struct {
	StatusCode int
	Header     http.Header
}

// TestStrictValidationAcceptsWhatTheSchemasShow sends objects naming
// every field the schemas show kubectl (each null, so that only the names
// are tried) with fieldValidation=Strict, as kubectl does: none may be
// refused as unknown. A field the schemas do not have is.
func TestStrictValidationAcceptsWhatTheSchemasShow(t *testing.T) {
	_, base := newAuthAPI(t)
	doc := gvSpec(t, openAPIRoot(t, base), corev1.SchemeGroupVersion)
	// fields is every property of the named schema, each null.
	fields := func(name string) map[string]any {
		s := doc.Components.Schemas[name]
		if s == nil || len(s.Properties) == 0 {
			t.Fatalf("no properties in %s", name)
		}
		out := map[string]any{}
		for p := range s.Properties {
			out[p] = nil
		}
		return out
	}
	pod := fields("io.k8s.api.core.v1.Pod")
	spec := fields("io.k8s.api.core.v1.PodSpec")
	spec["containers"] = []any{fields("io.k8s.api.core.v1.Container")}
	pod["metadata"], pod["spec"], pod["apiVersion"], pod["kind"] = map[string]any{"name": "every-field"}, spec, "v1", "Pod"
	node := fields("io.k8s.api.core.v1.Node")
	node["metadata"], node["spec"], node["status"], node["apiVersion"], node["kind"] = map[string]any{"name": "every-field"},
		fields("io.k8s.api.core.v1.NodeSpec"), fields("io.k8s.api.core.v1.NodeStatus"), "v1", "Node"
	cm := fields("io.k8s.api.core.v1.ConfigMap")
	cm["metadata"], cm["apiVersion"], cm["kind"] = map[string]any{"name": "every-field"}, "v1", "ConfigMap"
	for _, tt := range []struct {
		path string
		obj  map[string]any
	}{
		{"/api/v1/namespaces/default/pods", pod},
		{"/api/v1/nodes", node},
		{"/api/v1/namespaces/default/configmaps", cm},
	} {
		data, err := json.Marshal(tt.obj)
		if err != nil {
			t.Fatal(err)
		}
		a := send(t, nil, base, req{method: "POST", path: tt.path + "?fieldValidation=Strict", token: "admin-token", body: string(data)})
		// Decoded: created, or refused by herd's own rules (a container
		// with no name), not as a body with unknown fields.
		if a.code != http.StatusCreated && a.code != http.StatusUnprocessableEntity {
			t.Errorf("POST %s with every field the schema shows: %d %s", tt.path, a.code, a.body)
		}
		tt.obj["notAField"] = "x"
		data, _ = json.Marshal(tt.obj)
		a = send(t, nil, base, req{method: "POST", path: tt.path + "?fieldValidation=Strict", token: "admin-token", body: string(data)})
		if _, msg := a.status(t); a.code != http.StatusBadRequest || !strings.Contains(msg, `unknown field "notAField"`) {
			t.Errorf("POST %s with a field no schema has: %d %s", tt.path, a.code, msg)
		}
	}
}
