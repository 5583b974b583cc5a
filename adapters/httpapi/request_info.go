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

// parseRequestInfo reads the verb and resource of a request from its
// method and path: /api/v1/... for the core group, /apis/GROUP/VERSION/...
// for others, with namespaces/NS/ in front of namespaced resources.
func parseRequestInfo(r *http.Request) requestInfo {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	ri := requestInfo{Path: r.URL.Path}
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		ri.Group = parts[1]
		parts = parts[3:]
	default:
		ri.Verb = strings.ToLower(r.Method)
		return ri
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		ri.Namespace = parts[1]
		parts = parts[2:]
	}
	if len(parts) > 0 {
		ri.Resource = parts[0]
	}
	if len(parts) > 1 {
		ri.Name = parts[1]
	}
	if len(parts) > 2 {
		ri.Subresource = strings.Join(parts[2:], "/")
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		ri.Verb = "get"
		if ri.Name == "" {
			ri.Verb = "list"
		}
	case http.MethodPost:
		ri.Verb = "create"
	case http.MethodPut:
		ri.Verb = "update"
	case http.MethodPatch:
		ri.Verb = "patch"
	case http.MethodDelete:
		ri.Verb = "delete"
	default:
		ri.Verb = strings.ToLower(r.Method)
	}
	return ri
}
