package httpapi

import (
	"net/http"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kind is one resource herd serves, described once: its names and scope,
// the handler of each verb it serves, its subresources, and how it is
// listed and watched. The routes, discovery, content negotiation, the
// OpenAPI documents and the watch hub's registrations are all derived
// from the kinds (kinds.go), as kube-apiserver's endpoint installer
// derives them from a storage and its strategy: serving one more resource
// is one more kind, not an edit to each of those.
type kind struct {
	// gv is where the resource is served: core/v1 is the empty group.
	gv schema.GroupVersion
	// resource is the plural name in paths ("configmaps"), singular its
	// singular and name the Kind of its objects ("ConfigMap").
	resource, singular, name string
	// namespaced resources live in namespaces: their paths name one, and
	// they are also listed across namespaces.
	namespaced bool
	// shortNames and categories are what kubectl resolves to the
	// resource ("cm"; "all").
	shortNames, categories []string
	// verbs serve the resource itself: a nil handler is a verb not
	// served, and discovery does not list it.
	verbs verbs
	// watch says whether list serves ?watch=true.
	watch bool
	// table says whether gets and lists of the resource answer as a
	// Table when kubectl asks for one.
	table bool
	// subresources are served below an object's path.
	subresources []subresource
	// list lists and watches the resource through the shared helpers;
	// nil for a resource with handlers of its own.
	list *apiResource
	// deleteAnswersObject says that a delete answers with the object
	// while it is still being deleted (a pod terminating, a namespace
	// emptying), and a Status once it is gone; the OpenAPI documents say
	// so. Other kinds are gone at once.
	deleteAnswersObject bool
	// nodeRule is what a node's token may do with the resource and its
	// subresources (Kubernetes' Node authorizer and NodeRestriction);
	// nil lets a node do nothing with it.
	nodeRule func(g mainGate, r *http.Request, ri requestInfo, u User, node string) error
}

// verbs are the handlers of a resource's or a subresource's verbs.
type verbs struct {
	list, create, get, update, patch, delete http.HandlerFunc
	// dryRun says whether the write verbs run ?dryRun=All (the shared
	// handlers do); the others refuse it, changing nothing.
	dryRun bool
}

// served are the names of the verbs with a handler, sorted as discovery
// lists them; watch adds "watch".
func (v verbs) served(watch bool) metav1.Verbs {
	var out metav1.Verbs
	for _, h := range []struct {
		name string
		fn   http.HandlerFunc
	}{{"create", v.create}, {"delete", v.delete}, {"get", v.get}, {"list", v.list}, {"patch", v.patch}, {"update", v.update}} {
		if h.fn != nil {
			out = append(out, h.name)
		}
	}
	if watch && v.list != nil {
		out = append(out, "watch")
	}
	slices.Sort(out)
	return out
}

// subresource is served below an object of its kind: nodes/status,
// pods/eviction, and herd's own verbs on nodes and pods.
type subresource struct {
	// name is the path segment after the object's name ("status").
	name string
	// gv serves the subresource under another group-version than its
	// kind's (herd.dev's verbs on nodes); zero means the kind's.
	gv schema.GroupVersion
	// object is the Kind the subresource takes or gives ("Eviction"),
	// and objectGV its group-version when not gv's (policy/v1).
	object   string
	objectGV *schema.GroupVersion
	// rest is a wildcard after the name that the handlers read (a
	// taint's key: "{key...}").
	rest string
	// verbs serve the subresource; list is never one.
	verbs verbs
	// table says whether a get answers as a Table when asked.
	table bool
}

// servedAt is the group-version the subresource is served under.
func (sub subresource) servedAt(k *kind) schema.GroupVersion {
	if sub.gv.Version == "" {
		return k.gv
	}
	return sub.gv
}

// groupResource names the resource in errors: "configmaps",
// "leases.coordination.k8s.io".
func (k *kind) groupResource() schema.GroupResource {
	return schema.GroupResource{Group: k.gv.Group, Resource: k.resource}
}

// gvPath is where a group-version's resources are: "/api/v1",
// "/apis/coordination.k8s.io/v1".
func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

// collectionPath is the path of the resource's objects under gv, in the
// namespace of the request when namespaced.
func (k *kind) collectionPath(gv schema.GroupVersion) string {
	if k.namespaced {
		return gvPath(gv) + "/namespaces/{namespace}/" + k.resource
	}
	return gvPath(gv) + "/" + k.resource
}

// routes registers every verb of the resource and its subresources.
func (k *kind) routes(m routeMux) {
	coll := k.collectionPath(k.gv)
	if h := k.verbs.list; h != nil {
		m.HandleFunc("GET "+gvPath(k.gv)+"/"+k.resource, h)
		if k.namespaced {
			m.HandleFunc("GET "+coll, h)
		}
	}
	k.verbs.route(m, coll, coll+"/{name}")
	for _, sub := range k.subresources {
		path := k.collectionPath(sub.servedAt(k)) + "/{name}/" + sub.name
		if sub.rest != "" {
			path += "/" + sub.rest
		}
		sub.verbs.route(m, path, path)
	}
}

// route registers v's verbs other than list: create at the collection
// coll, the others at item.
func (v verbs) route(m routeMux, coll, item string) {
	v = v.writes(m.s)
	for _, h := range []struct {
		method, path string
		fn           http.HandlerFunc
	}{{"POST", coll, v.create}, {"GET", item, v.get}, {"PUT", item, v.update}, {"PATCH", item, v.patch}, {"DELETE", item, v.delete}} {
		if h.fn != nil {
			m.HandleFunc(h.method+" "+h.path, h.fn)
		}
	}
}

// writes are v with each write verb refusing a dry run first, unless v
// runs dry runs itself.
func (v verbs) writes(s *Server) verbs {
	if v.dryRun {
		return v
	}
	for _, h := range []*http.HandlerFunc{&v.create, &v.update, &v.patch, &v.delete} {
		if next := *h; next != nil {
			*h = func(w http.ResponseWriter, r *http.Request) {
				if err := refuseDryRun(r); err != nil {
					s.writeError(w, err, "", "")
					return
				}
				next(w, r)
			}
		}
	}
	return v
}

// discovery is what discovery lists for gv of this kind: the resource
// when it is served there, and its subresources served there.
func (k *kind) discovery(gv schema.GroupVersion) []metav1.APIResource {
	var out []metav1.APIResource
	if k.gv == gv {
		if v := k.verbs.served(k.watch); len(v) > 0 {
			out = append(out, metav1.APIResource{
				Name: k.resource, SingularName: k.singular, Namespaced: k.namespaced, Kind: k.name,
				Verbs: v, ShortNames: k.shortNames, Categories: k.categories,
			})
		}
	}
	for _, sub := range k.subresources {
		if sub.servedAt(k) != gv {
			continue
		}
		name := k.resource + "/" + sub.name
		// A subresource served on two paths (taints, and one taint by
		// its key) is one resource to discovery.
		if i := slices.IndexFunc(out, func(r metav1.APIResource) bool { return r.Name == name }); i >= 0 {
			out[i].Verbs = slices.Sorted(slices.Values(append(out[i].Verbs, sub.verbs.served(false)...)))
			continue
		}
		res := metav1.APIResource{Name: name, Namespaced: k.namespaced, Kind: sub.object, Verbs: sub.verbs.served(false)}
		if res.Kind == "" {
			res.Kind = k.name
		}
		if sub.objectGV != nil {
			res.Group, res.Version = sub.objectGV.Group, sub.objectGV.Version
		}
		out = append(out, res)
	}
	return out
}

// hasTable says whether a get of sub ("" for the object itself) or a
// list can answer as a Table.
func (k *kind) hasTable(sub string) bool {
	if sub == "" {
		return k.table
	}
	for _, s := range k.subresources {
		if s.name == sub {
			return s.table
		}
	}
	return false
}
