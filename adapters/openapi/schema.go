// Package openapi generates the OpenAPI v3 schemas of the Kubernetes kinds
// herd serves from the k8s.io/api Go types themselves: field names from
// their JSON tags, descriptions from the SwaggerDoc maps that k8s.io/api
// generates from the same comments kube-apiserver's schemas come from,
// required fields from the fields that are never omitted, and the
// strategic-merge keys from the patchStrategy and patchMergeKey tags. So
// `kubectl explain pod.spec.containers` reads what Kubernetes documents,
// and the schemas change only when the types do.
package openapi

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Schema is one OpenAPI v3 schema object, as JSON writes it.
type Schema = map[string]any

// Kind is a kind whose schema is wanted, with its group, version and kind
// for the x-kubernetes-group-version-kind extension kubectl looks up.
type Kind struct {
	// GVK is the kind's group, version and kind; a zero GVK asks for the
	// schema of a type that is no kind of its own (meta/v1's Patch), with
	// no extension.
	GVK    schema.GroupVersionKind
	Object any // a value of the Go type, such as corev1.Pod{}
}

// Schemas returns the component schemas of kinds and of every type they
// reach, by their Kubernetes names (io.k8s.api.core.v1.Pod). A type that
// is several kinds (meta/v1's Status in every group) lists each once.
func Schemas(kinds ...Kind) map[string]Schema {
	g := generator{out: map[string]Schema{}}
	for _, k := range kinds {
		t := reflect.TypeOf(k.Object)
		name := g.named(t)
		if k.GVK.Empty() {
			continue
		}
		s := g.out[name]
		gvks, _ := s["x-kubernetes-group-version-kind"].([]map[string]string)
		gvk := map[string]string{"group": k.GVK.Group, "version": k.GVK.Version, "kind": k.GVK.Kind}
		if !slices.ContainsFunc(gvks, func(m map[string]string) bool { return maps.Equal(m, gvk) }) {
			s["x-kubernetes-group-version-kind"] = append(gvks, gvk)
		}
	}
	return g.out
}

// Ref is the reference to a component schema by name.
func Ref(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

// Name is the Kubernetes name of a Go type's schema: its package path
// reversed into a domain (k8s.io/api/core/v1 → io.k8s.api.core.v1) and
// its type name.
func Name(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	path := t.PkgPath()
	host, rest, _ := strings.Cut(path, "/")
	parts := strings.Split(host, ".")
	slices.Reverse(parts)
	name := strings.Join(parts, ".")
	if rest != "" {
		name += "." + strings.ReplaceAll(rest, "/", ".")
	}
	return name + "." + t.Name()
}

type generator struct{ out map[string]Schema }

// Types with a schema of their own in Kubernetes' OpenAPI, not their Go
// structure: they marshal themselves.
var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
	intOrString   = reflect.TypeFor[intstr.IntOrString]()
	durationType  = reflect.TypeFor[metav1.Duration]()
	rawExtension  = reflect.TypeFor[runtime.RawExtension]()
	fieldsV1Type  = reflect.TypeFor[metav1.FieldsV1]()
)

// custom is the schema of a type that marshals itself, and whether t is
// one.
func custom(t reflect.Type) (Schema, bool) {
	switch t {
	case timeType, microTimeType:
		return Schema{"type": "string", "format": "date-time"}, true
	case quantityType:
		return Schema{"description": "Quantity is a fixed-point representation of a number, such as 250m, 1.5Gi or 4.",
			"oneOf": []Schema{{"type": "string"}, {"type": "number"}}}, true
	case intOrString:
		return Schema{"x-kubernetes-int-or-string": true, "anyOf": []Schema{{"type": "integer"}, {"type": "string"}}}, true
	case durationType:
		return Schema{"type": "string"}, true
	case rawExtension:
		return Schema{"type": "object", "description": "RawExtension holds an object of any kind."}, true
	case fieldsV1Type:
		return Schema{"type": "object", "description": "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format."}, true
	}
	return nil, false
}

// named adds the schema of struct type t (and of what it reaches) under
// its name, once, and returns the name.
func (g *generator) named(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := Name(t)
	if _, done := g.out[name]; done {
		return name
	}
	if s, ok := custom(t); ok {
		g.out[name] = s
		return name
	}
	s := Schema{"type": "object"}
	g.out[name] = s // before the fields: types may refer to themselves
	docs := swaggerDoc(t)
	if d := docs[""]; d != "" {
		s["description"] = d
	}
	props := map[string]Schema{}
	var required []string
	g.fields(t, docs, props, &required)
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(required) > 0 {
		slices.Sort(required)
		s["required"] = required
	}
	return name
}

// fields adds t's fields to props, those of inlined structs included.
func (g *generator) fields(t reflect.Type, docs map[string]string, props map[string]Schema, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && name == "") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			g.fields(ft, swaggerDoc(ft), props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := g.schema(f.Type)
		if d := docs[name]; d != "" {
			if _, isRef := p["$ref"]; isRef {
				p = Schema{"allOf": []Schema{p}} // a $ref takes no siblings in OpenAPI 3.0
			}
			p["description"] = d
		}
		if ps := f.Tag.Get("patchStrategy"); ps != "" {
			p["x-kubernetes-patch-strategy"] = ps
		}
		if pk := f.Tag.Get("patchMergeKey"); pk != "" {
			p["x-kubernetes-patch-merge-key"] = pk
		}
		props[name] = p
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
}

// schema is the schema of a field of type t: a reference for a struct,
// the JSON type otherwise.
func (g *generator) schema(t reflect.Type) Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if _, ok := custom(t); ok {
		return Ref(g.named(t))
	}
	switch t.Kind() {
	case reflect.Struct:
		return Ref(g.named(t))
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int32, reflect.Uint32, reflect.Int16, reflect.Uint16, reflect.Int8, reflect.Uint8:
		return Schema{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		return Schema{"type": "integer", "format": "int64"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number", "format": "double"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return Schema{"type": "string", "format": "byte"}
		}
		return Schema{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return Schema{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Interface:
		return Schema{"type": "object"}
	}
	return Schema{}
}

// swaggerDoc is t's SwaggerDoc map (k8s.io/api generates one per type),
// or its entry in otherDocs, or nil.
func swaggerDoc(t reflect.Type) map[string]string {
	if d, ok := otherDocs[t]; ok {
		return d
	}
	type documented interface{ SwaggerDoc() map[string]string }
	if d, ok := reflect.Zero(t).Interface().(documented); ok {
		return d.SwaggerDoc()
	}
	if d, ok := reflect.New(t).Interface().(documented); ok {
		return d.SwaggerDoc()
	}
	return nil
}
