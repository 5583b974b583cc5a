package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
)

// TestEveryServedResourceIsWhole reads every resource herd serves from
// discovery, as kubectl does, and checks that each is whole: every verb
// discovery lists has its route, every Kubernetes group-version's
// OpenAPI document describes the resource and its kind, every Kubernetes
// resource that lists answers as a Table, and every one that watches
// opens a watch. The kinds (kinds.go) are the one place all of it comes
// from; a resource described without one of these fails here.
func TestEveryServedResourceIsWhole(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: base})
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	root := openapi3.NewRoot(dc.OpenAPIV3())
	seen := 0
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		var doc *spec3.OpenAPI
		if gv.Group != herdGroup {
			doc = gvSpec(t, root, gv)
		}
		for _, res := range list.APIResources {
			seen++
			t.Run(gv.String()+"/"+res.Name, func(t *testing.T) {
				p := probePaths(gv, res)
				for _, verb := range res.Verbs {
					checkRoute(t, base, p, verb)
				}
				if doc != nil {
					checkOpenAPI(t, doc, gv, res, p)
				}
				if gv.Group != herdGroup && slices.Contains(res.Verbs, "list") {
					checkTable(t, base, p.collection, http.StatusOK, "Table")
				}
				if gv.Group != herdGroup && !p.sub && slices.Contains(res.Verbs, "get") {
					// What is not there is a Status, though a Table was asked for.
					checkTable(t, base, p.item, http.StatusNotFound, "Status")
				}
				if slices.Contains(res.Verbs, "watch") {
					checkWatch(t, base, p.collection)
				}
			})
		}
	}
	if seen < 20 {
		t.Errorf("discovery lists %d resources; herd serves more", seen)
	}
}

// resourcePaths are where a test reaches a resource: its collection, an
// object in it named "probe" (which does not exist), and the
// subresource's path below that object.
type resourcePaths struct {
	collection, item, openAPIItem string
	sub                           bool
}

func probePaths(gv schema.GroupVersion, res metav1.APIResource) resourcePaths {
	name, sub, _ := strings.Cut(res.Name, "/")
	prefix := gvPath(gv)
	collection, openAPI := prefix+"/"+name, prefix+"/"+name
	if res.Namespaced {
		collection = prefix + "/namespaces/default/" + name
		openAPI = prefix + "/namespaces/{namespace}/" + name
	}
	p := resourcePaths{collection: collection, item: collection + "/probe", openAPIItem: openAPI + "/{name}", sub: sub != ""}
	if sub != "" {
		p.item += "/" + sub
		p.openAPIItem += "/" + sub
	}
	return p
}

// routeMissing says whether an answer is the mux's, not a handler's: the
// catch-all 404 of a path no route has, or the 405 of a method the path
// has no route for.
func routeMissing(a answer) bool {
	return a.code == http.StatusMethodNotAllowed ||
		(a.code == http.StatusNotFound && strings.Contains(string(a.body), "the server could not find the requested resource"))
}

// checkRoute sends verb to the resource and fails when no route took it.
func checkRoute(t *testing.T, base string, p resourcePaths, verb string) {
	t.Helper()
	rq := req{method: methodOf(verb), path: p.item}
	switch verb {
	case "list", "watch":
		rq.path = p.collection
	case "create":
		rq.body = "{}"
		if !p.sub {
			rq.path = p.collection
		}
	case "update":
		rq.body = "{}"
	case "patch":
		rq.body, rq.contentType = "{}", mergePatch
	}
	a := send(t, nil, base, rq)
	if routeMissing(a) && verb == "delete" && p.sub {
		// A subresource whose delete names what it removes after it
		// (nodes/taints/KEY).
		rq.path += "/probe"
		a = send(t, nil, base, rq)
	}
	if routeMissing(a) {
		t.Errorf("%s (%s %s): no route: %d %s", verb, rq.method, rq.path, a.code, a.body)
	}
}

// checkOpenAPI fails unless doc has a path of the resource and a schema
// of its kind.
func checkOpenAPI(t *testing.T, doc *spec3.OpenAPI, gv schema.GroupVersion, res metav1.APIResource, p resourcePaths) {
	t.Helper()
	want := p.openAPIItem
	if !p.sub && (slices.Contains(res.Verbs, "list") || slices.Contains(res.Verbs, "create")) {
		want = strings.TrimSuffix(p.openAPIItem, "/{name}")
	}
	if doc.Paths == nil || doc.Paths.Paths[want] == nil {
		t.Errorf("the OpenAPI document of %s has no path %s", gv, want)
	}
	gvk := gv.WithKind(res.Kind)
	if res.Group != "" || res.Version != "" {
		gvk = schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
	}
	if name, s := schemaOf(doc, gvk); s == nil {
		t.Errorf("the OpenAPI document of %s has no schema of %s (%s)", gv, gvk, name)
	}
}

// checkTable asks for path as kubectl get does, as a Table, and fails
// unless the answer is code with an object of kind; a Table must name its
// objects.
func checkTable(t *testing.T, base, path string, code int, kind string) {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tbl metav1.Table
	if err := json.NewDecoder(resp.Body).Decode(&tbl); err != nil || resp.StatusCode != code {
		t.Fatalf("table of %s: %d, %v; want %d", path, resp.StatusCode, err, code)
	}
	named := slices.ContainsFunc(tbl.ColumnDefinitions, func(c metav1.TableColumnDefinition) bool { return c.Name == "Name" })
	if tbl.Kind != kind || (kind == "Table" && !named) {
		t.Errorf("table of %s: %s with columns %v, want a %s", path, tbl.Kind, tbl.ColumnDefinitions, kind)
	}
}

// checkWatch fails unless a watch of the collection opens: its answer's
// head is a 200 in a watch's media type. The watch is left at that.
func checkWatch(t *testing.T, base, collection string) {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+collection+"?watch=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("watch %s: %d %s", collection, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
