package httpapi

import (
	"net/http"
	"strings"
)

// requestInfo is what a request asks for, in Kubernetes' authorization
// terms: a verb on a resource (and subresource), maybe namespaced, maybe
// named. Paths that are no resource (discovery, health) leave Resource
// empty.
type requestInfo struct {
	Path        string
	Verb        string
	Group       string
	Namespace   string
	Resource    string
	Name        string
	Subresource string
}

// resourcePath is "nodes/status" or "configmaps", as error messages say it.
func (ri requestInfo) resourcePath() string {
	if ri.Subresource != "" {
		return ri.Resource + "/" + ri.Subresource
	}
	return ri.Resource
}

// routeInfo is what the route a request matched says it asks for: the
// pattern the mux matched (r.Pattern) gives the shape — /api/v1/... for
// the core group, /apis/GROUP/VERSION/... for others, the resource and
// subresource as its literal segments — and its wildcards the values:
// {namespace} the namespace, {name} the object, any other wildcard (a
// taint's key) part of the subresource. Nothing is guessed from the path
// itself. A route that is no resource (discovery, health) leaves Resource
// empty.
func routeInfo(r *http.Request) requestInfo {
	pattern := r.Pattern
	if _, path, ok := strings.Cut(pattern, " "); ok {
		pattern = path
	}
	ri := requestInfo{Path: r.URL.Path, Verb: verbOf(r.Method, false)}
	segs := strings.Split(strings.Trim(pattern, "/"), "/")
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		ri.Group = segs[1]
		segs = segs[3:]
	default:
		ri.Verb = strings.ToLower(r.Method)
		return ri
	}
	var sub []string
	for i, seg := range segs {
		wildcard := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(seg, "{"), "}"), "...")
		switch {
		case seg == "namespaces" && i+1 < len(segs) && segs[i+1] == "{namespace}":
		case seg == "{namespace}":
			ri.Namespace = r.PathValue("namespace")
		case seg == "{name}":
			ri.Name = r.PathValue("name")
		case strings.HasPrefix(seg, "{"):
			sub = append(sub, r.PathValue(wildcard))
		case ri.Resource == "":
			ri.Resource = seg
		default:
			sub = append(sub, seg)
		}
	}
	ri.Subresource = strings.Join(sub, "/")
	ri.Verb = verbOf(r.Method, ri.Name != "")
	return ri
}

// verbOf is the Kubernetes verb of a request's method: a GET is a get of
// a named object and a list otherwise.
func verbOf(method string, named bool) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		if named {
			return "get"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(method)
}
