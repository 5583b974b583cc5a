package httpapi

import "net/http"

// openAPICoordinationPath is where the OpenAPI v3 document of
// coordination.k8s.io/v1 is served; /openapi/v3 lists it.
const openAPICoordinationPath = "/openapi/v3/apis/" + coordinationGroup + "/v1"

// openAPICoordination is the OpenAPI v3 document of coordination.k8s.io/v1
// as herd serves it: the lease paths with their operations, each tagged
// with the Lease kind and, for writes, the fieldValidation parameter herd
// honours. kubectl reads it before `kubectl create -f` or `apply` of a
// lease; without it kubectl refuses unless told --validate=false. As for
// core/v1, the schema names the kind without describing its fields.
func (s *Server) openAPICoordination(w http.ResponseWriter, _ *http.Request) {
	gvk := map[string]string{"group": coordinationGroup, "version": "v1", "kind": "Lease"}
	op := func(action string, write bool) map[string]any {
		o := map[string]any{
			"x-kubernetes-group-version-kind": gvk,
			"x-kubernetes-action":             action,
			"responses":                       map[string]any{"200": map[string]any{"description": "OK"}},
		}
		if write {
			o["parameters"] = []map[string]any{{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"}}}
		}
		return o
	}
	base := "/apis/" + coordinationGroup + "/v1/namespaces/{namespace}/leases"
	s.writeJSON(w, http.StatusOK, map[string]any{
		"openapi": "3.0.0",
		"info":    map[string]string{"title": "herd", "version": "v1"},
		"paths": map[string]any{
			"/apis/" + coordinationGroup + "/v1/leases": map[string]any{"get": op("list", false)},
			base: map[string]any{"get": op("list", false), "post": op("post", true)},
			base + "/{name}": map[string]any{
				"get": op("get", false), "put": op("put", true), "patch": op("patch", true), "delete": op("delete", false),
			},
		},
		"components": map[string]any{"schemas": map[string]any{
			"io.k8s.api.coordination.v1.Lease": map[string]any{"type": "object", "x-kubernetes-group-version-kind": []map[string]string{gvk}},
		}},
	})
}
