package httpapi

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"herd/adapters/openapi"
)

// openAPIGroupVersion is one group-version herd describes under
// /openapi/v3: the paths of its resources, and the schemas of the kinds
// they take and give, generated from the Kubernetes Go types.
type openAPIGroupVersion struct {
	gv schema.GroupVersion
	// resources are what discovery lists for gv; each gets its paths.
	resources []metav1.APIResource
	// kinds are kinds of gv described without a path of their own.
	kinds []string
	// deletesAnswerObject are the resources whose delete answers with
	// the object while it is still going (a pod terminating) rather than
	// a Status.
	deletesAnswerObject map[string]bool
}

// openAPIGroupVersions is every group-version the kinds are served
// under, each with the resources its discovery lists, and the
// group-versions of the objects subresources take (policy/v1's Eviction,
// posted to pods/eviction) with those kinds. herd's own group has no
// Go types in the scheme to describe, and no document.
func openAPIGroupVersions(kinds []*kind) []openAPIGroupVersion {
	var out []openAPIGroupVersion
	for _, gv := range groupVersions(kinds) {
		if gv.Group != herdGroup {
			g := openAPIGroupVersion{gv: gv, resources: resourcesAt(kinds, gv), deletesAnswerObject: map[string]bool{}}
			for _, k := range kinds {
				if k.gv == gv && k.deleteAnswersObject {
					g.deletesAnswerObject[k.resource] = true
				}
			}
			out = append(out, g)
		}
	}
	for _, k := range kinds {
		for _, sub := range k.subresources {
			if sub.objectGV == nil {
				continue
			}
			i := slices.IndexFunc(out, func(g openAPIGroupVersion) bool { return g.gv == *sub.objectGV })
			if i < 0 {
				out = append(out, openAPIGroupVersion{gv: *sub.objectGV})
				i = len(out) - 1
			}
			out[i].kinds = append(out[i].kinds, sub.object)
		}
	}
	return out
}

// openAPIPath is where gv's document is under /openapi/v3, and the
// prefix of its resources' paths without the slash: "api/v1",
// "apis/metrics.k8s.io/v1beta1".
func openAPIPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// openAPIDocument builds gv's OpenAPI v3 document, as kube-apiserver's
// is shaped: paths with an operation per verb, each naming the kind it
// acts on and referring to the schemas of its body and its answers.
func openAPIDocument(g openAPIGroupVersion) (map[string]any, error) {
	b := docBuilder{gv: g.gv, deletesAnswerObject: g.deletesAnswerObject, paths: map[string]map[string]any{}, kinds: map[schema.GroupVersionKind]bool{}, kindOf: map[string]string{}}
	for _, res := range g.resources {
		if !strings.Contains(res.Name, "/") {
			b.kindOf[res.Name] = res.Kind
		}
	}
	for _, kind := range g.kinds {
		b.kinds[g.gv.WithKind(kind)] = true
	}
	for _, res := range g.resources {
		b.resource(res)
	}
	gvks := make([]schema.GroupVersionKind, 0, len(b.kinds))
	for gvk := range b.kinds {
		gvks = append(gvks, gvk)
	}
	slices.SortFunc(gvks, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	kinds := []openapi.Kind{{Object: metav1.Patch{}}}
	for _, gvk := range gvks {
		obj, err := scheme.New(gvk)
		if err != nil {
			return nil, fmt.Errorf("the OpenAPI document of %s: %w", g.gv, err)
		}
		kinds = append(kinds, openapi.Kind{GVK: gvk, Object: obj})
	}
	schemas := openapi.Schemas(kinds...)
	if !b.patches {
		delete(schemas, patchSchema)
	}
	return map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "herd", "version": g.gv.String()},
		"paths":      b.paths,
		"components": map[string]any{"schemas": schemas},
	}, nil
}

// The schemas of meta/v1 that operations refer to.
const (
	patchSchema         = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	statusSchema        = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	deleteOptionsSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	watchEventSchema    = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"
)

// docBuilder gathers one document's paths and the kinds they refer to.
type docBuilder struct {
	gv                  schema.GroupVersion
	deletesAnswerObject map[string]bool
	paths               map[string]map[string]any
	kinds               map[schema.GroupVersionKind]bool
	// patches says whether an operation takes a Patch.
	patches bool
	// kindOf is the kind of each resource of gv, by name, which names
	// the operations on its subresources.
	kindOf map[string]string
}

// resource adds the paths of res and the kinds it refers to.
func (b *docBuilder) resource(res metav1.APIResource) {
	name, sub, _ := strings.Cut(res.Name, "/")
	gvk := b.gv.WithKind(res.Kind)
	if res.Group != "" || res.Version != "" {
		gvk = schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
	}
	b.kinds[gvk] = true
	kindRef := openapi.Ref(schemaName(gvk))
	prefix := "/" + openAPIPath(b.gv)
	collection := prefix + "/" + name
	if res.Namespaced {
		collection = prefix + "/namespaces/{namespace}/" + name
	}
	item := collection + "/{name}"
	if sub != "" {
		item += "/" + sub
	}
	op := func(action, id, doc string) map[string]any {
		return map[string]any{
			"description":                     doc,
			"operationId":                     id,
			"tags":                            []string{b.tag()},
			"x-kubernetes-action":             action,
			"x-kubernetes-group-version-kind": map[string]string{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind},
		}
	}
	id := b.operationID(res, sub)
	for _, verb := range res.Verbs {
		switch verb {
		case "list":
			if sub != "" {
				continue
			}
			listGVK := b.gv.WithKind(res.Kind + "List")
			b.kinds[listGVK] = true
			o := op("list", "list"+id, "list or watch objects of kind "+res.Kind)
			o["parameters"] = listParameters(slices.Contains(res.Verbs, "watch"))
			o["responses"] = b.listResponses(listGVK, slices.Contains(res.Verbs, "watch"))
			b.add(collection, "get", o, res.Namespaced, false)
			if res.Namespaced {
				all := op("list", "list"+strings.Replace(id, "Namespaced", "", 1)+"ForAllNamespaces", "list or watch objects of kind "+res.Kind+" in every namespace")
				all["parameters"], all["responses"] = o["parameters"], o["responses"]
				b.add(prefix+"/"+name, "get", all, false, false)
			}
		case "get":
			o := op("get", "read"+id, "read the specified "+res.Kind+describeSub(sub))
			o["responses"] = responses(200, kindRef)
			b.add(item, "get", o, res.Namespaced, true)
		case "create":
			o := op("post", "create"+id, "create "+article(res.Kind)+" "+res.Kind)
			o["parameters"] = writeParameters(false)
			o["requestBody"] = requestBody("*/*", kindRef)
			if sub == "" {
				o["responses"] = responses(201, kindRef, 200, kindRef)
				b.add(collection, "post", o, res.Namespaced, false)
				continue
			}
			b.kinds[b.gv.WithKind("Status")] = true
			o["responses"] = responses(201, openapi.Ref(statusSchema))
			b.add(item, "post", o, res.Namespaced, true)
		case "update":
			o := op("put", "replace"+id, "replace the specified "+res.Kind+describeSub(sub))
			o["parameters"] = writeParameters(false)
			o["requestBody"] = requestBody("*/*", kindRef)
			o["responses"] = responses(200, kindRef)
			b.add(item, "put", o, res.Namespaced, true)
		case "patch":
			b.patches = true
			o := op("patch", "patch"+id, "partially update the specified "+res.Kind+describeSub(sub))
			o["parameters"] = writeParameters(true)
			o["requestBody"] = patchRequestBody()
			o["responses"] = responses(200, kindRef)
			b.add(item, "patch", o, res.Namespaced, true)
		case "delete":
			b.kinds[b.gv.WithKind("DeleteOptions")] = true
			o := op("delete", "delete"+id, "delete "+article(res.Kind)+" "+res.Kind)
			o["requestBody"] = requestBody("*/*", openapi.Ref(deleteOptionsSchema))
			if b.deletesAnswerObject[name] {
				o["responses"] = responses(200, kindRef)
			} else {
				b.kinds[b.gv.WithKind("Status")] = true
				o["responses"] = responses(200, openapi.Ref(statusSchema))
			}
			b.add(item, "delete", o, res.Namespaced, true)
		}
	}
}

// add puts op under method of path, with the path's parameters.
func (b *docBuilder) add(path, method string, op map[string]any, namespaced, named bool) {
	p := b.paths[path]
	if p == nil {
		p = map[string]any{}
		var params []map[string]any
		if named {
			params = append(params, pathParameter("name", "name of the object"))
		}
		if namespaced {
			params = append(params, pathParameter("namespace", "object name and auth scope, such as for teams and projects"))
		}
		if len(params) > 0 {
			p["parameters"] = params
		}
		b.paths[path] = p
	}
	p[method] = op
}

// listResponses are a list's answers: the list, and a watch's events.
func (b *docBuilder) listResponses(list schema.GroupVersionKind, watch bool) map[string]any {
	content := mediaTypes(openapi.Ref(schemaName(list)))
	if watch {
		b.kinds[b.gv.WithKind("WatchEvent")] = true
		for _, mt := range []string{"application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"} {
			content[mt] = map[string]any{"schema": openapi.Ref(watchEventSchema)}
		}
	}
	return map[string]any{"200": map[string]any{"description": "OK", "content": content}, "401": unauthorizedAnswer}
}

// tag is kube-apiserver's tag of gv's operations: "core_v1",
// "metrics.k8s.io_v1beta1".
func (b *docBuilder) tag() string {
	if b.gv.Group == "" {
		return "core_" + b.gv.Version
	}
	return b.gv.Group + "_" + b.gv.Version
}

// operationID is the end of an operation's ID after its verb, as
// kube-apiserver names them: CoreV1NamespacedPodStatus,
// MetricsV1beta1NodeMetrics.
func (b *docBuilder) operationID(res metav1.APIResource, sub string) string {
	group := "Core"
	if b.gv.Group != "" {
		group = upperFirst(strings.Split(b.gv.Group, ".")[0])
	}
	id := group + upperFirst(b.gv.Version)
	if res.Namespaced {
		id += "Namespaced"
	}
	if sub == "" {
		return id + res.Kind
	}
	name, _, _ := strings.Cut(res.Name, "/")
	return id + cmp.Or(b.kindOf[name], upperFirst(name)) + upperFirst(sub)
}

// upperFirst is s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// article is "an" before a vowel, "a" otherwise.
func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// describeSub names a subresource in an operation's description.
func describeSub(sub string) string {
	if sub == "" {
		return ""
	}
	return " (" + sub + ")"
}

// schemaName is the name of gvk's schema: that of its Go type.
func schemaName(gvk schema.GroupVersionKind) string {
	obj, err := scheme.New(gvk)
	if err != nil {
		return "" // openAPIDocument reports it
	}
	return openapi.Name(reflect.TypeOf(obj))
}

// unauthorizedAnswer is the 401 every operation may answer.
var unauthorizedAnswer = map[string]any{"description": "Unauthorized"}

// mediaTypes is s in every media type herd answers Kubernetes objects in.
func mediaTypes(s openapi.Schema) map[string]any {
	content := map[string]any{}
	for _, info := range servedTypes {
		content[info.MediaType] = map[string]any{"schema": s}
	}
	return content
}

// responses are answers by code (pairs of code and schema), and 401.
func responses(pairs ...any) map[string]any {
	out := map[string]any{"401": unauthorizedAnswer}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[fmt.Sprint(pairs[i])] = map[string]any{"description": "OK", "content": mediaTypes(pairs[i+1].(openapi.Schema))}
	}
	return out
}

// requestBody is a required request body of schema s in mediaType.
func requestBody(mediaType string, s openapi.Schema) map[string]any {
	return map[string]any{"required": true, "content": map[string]any{mediaType: map[string]any{"schema": s}}}
}

// patchRequestBody is a PATCH's body in the patch types herd applies; kubectl
// apply computes a strategic merge patch when this names it.
func patchRequestBody() map[string]any {
	content := map[string]any{}
	for _, mt := range []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"} {
		content[mt] = map[string]any{"schema": openapi.Ref(patchSchema)}
	}
	return map[string]any{"required": true, "content": content}
}

// pathParameter is a required parameter of a path.
func pathParameter(name, doc string) map[string]any {
	return map[string]any{"name": name, "in": "path", "required": true, "description": doc, "schema": map[string]any{"type": "string", "uniqueItems": true}}
}

// queryParameter is an optional query parameter of type typ.
func queryParameter(name, typ, doc string) map[string]any {
	return map[string]any{"name": name, "in": "query", "description": doc, "schema": map[string]any{"type": typ, "uniqueItems": true}}
}

// writeParameters are the query parameters of a create, update or patch
// herd honours. kubectl reads fieldValidation on a kind's PATCH to learn
// that herd checks fields itself, and then sends Strict.
func writeParameters(patch bool) []map[string]any {
	doc := "Strict (kubectl's default) refuses a body with fields its kind does not have, or with a field twice; any other value lets herd drop such fields."
	if patch {
		doc = "Strict (kubectl's default) refuses a patch whose result has fields its kind does not have, or a field twice; any other value lets herd drop such fields."
	}
	return []map[string]any{queryParameter("fieldValidation", "string", doc)}
}

// listParameters are the query parameters of a list herd honours, and
// those of a watch when it has one.
func listParameters(watch bool) []map[string]any {
	ps := []map[string]any{
		queryParameter("labelSelector", "string", "A selector to restrict the list of returned objects by their labels."),
		queryParameter("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields."),
		queryParameter("limit", "integer", "The most objects to return in one answer; the rest follow with continue."),
		queryParameter("continue", "string", "The continue token of the previous answer, to read the next page."),
		queryParameter("resourceVersion", "string", "The log position to list as of (with resourceVersionMatch) or to watch from."),
		queryParameter("resourceVersionMatch", "string", "How resourceVersion applies: Exact or NotOlderThan."),
	}
	if watch {
		ps = append(ps,
			queryParameter("watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."),
			queryParameter("allowWatchBookmarks", "boolean", "Send BOOKMARK events carrying the log position the watch has reached."),
			queryParameter("sendInitialEvents", "boolean", "Start a watch with the current objects as ADDED events, then a bookmark."),
			queryParameter("timeoutSeconds", "integer", "End the watch after this many seconds."))
	}
	return ps
}
