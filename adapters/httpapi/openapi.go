package httpapi

import (
	"net/http"
	"strings"
)

// openAPIIndex is /openapi/v3: where each group-version's document is.
// kubectl reads it before it creates or applies an object, to learn
// whether the server validates fields itself (the fieldValidation query
// parameter); without it, kubectl refuses unless told --validate=false.
func (s *Server) openAPIIndex(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, map[string]any{
		"paths": map[string]any{"api/v1": map[string]string{"serverRelativeURL": "/openapi/v3/api/v1"},
			"apis/" + coordinationGroup + "/v1": map[string]string{"serverRelativeURL": openAPICoordinationPath}},
	})
}

// openAPICore is the OpenAPI v3 document of core/v1 as herd serves it:
// every path of every resource in coreAPIResources with the operations its
// verbs allow, each tagged with the kind it acts on and, for writes, the
// fieldValidation parameter herd honours. Schemas name the kinds without
// describing their fields; herd validates bodies itself.
func (s *Server) openAPICore(w http.ResponseWriter, _ *http.Request) {
	paths := map[string]any{}
	schemas := map[string]any{}
	for _, res := range coreAPIResources() {
		if res.Group != "" {
			continue // served in another group (eviction is policy/v1)
		}
		gvk := []map[string]string{{"group": "", "version": "v1", "kind": res.Kind}}
		schemas["io.k8s.api.core.v1."+res.Kind] = map[string]any{"type": "object", "x-kubernetes-group-version-kind": gvk}
		name, sub, _ := strings.Cut(res.Name, "/")
		base := "/api/v1/" + name
		if res.Namespaced {
			base = "/api/v1/namespaces/{namespace}/" + name
		}
		item, collection := map[string]any{}, map[string]any{}
		for _, verb := range res.Verbs {
			op := map[string]any{
				"x-kubernetes-group-version-kind": gvk[0],
				"x-kubernetes-action":             verb,
				"responses":                       map[string]any{"200": map[string]any{"description": "OK"}},
			}
			switch verb {
			case "create", "update", "patch":
				op["parameters"] = []map[string]any{{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"}}}
			}
			switch verb {
			case "list":
				collection["get"] = op
			case "create":
				if sub == "" {
					collection["post"] = op
				} else {
					item["post"] = op
				}
			case "get":
				item["get"] = op
			case "update":
				item["put"] = op
			case "patch":
				item["patch"] = op
			case "delete":
				item["delete"] = op
			}
		}
		itemPath := base + "/{name}"
		if sub != "" {
			itemPath += "/" + sub
		}
		if len(item) > 0 {
			paths[itemPath] = item
		}
		if len(collection) > 0 {
			paths[base] = collection
		}
	}
	s.writeJSON(w, http.StatusOK, map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "herd", "version": "v1"},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	})
}
