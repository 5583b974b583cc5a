package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	gojson "github.com/goccy/go-json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/domain"
	"herd/events"
	"herd/projections/watch"
)

// apiResource is how a kind is listed and watched through the shared
// list and watch helpers: its names, its field labels, its table, and a
// watch.Kind saying where its objects live in the log and how they look.
type apiResource struct {
	// name is the plural resource name, as in the path: "nodes".
	name string
	// kind and apiVersion name the objects: "Node", "v1". Lists are
	// kind+"List".
	kind, apiVersion string
	// namespaced resources are listed across namespaces or in the one the
	// path names; their keys are "namespace/name".
	namespaced bool
	// fieldLabels are what field selectors may name, as kube-apiserver
	// allows them for this resource.
	fieldLabels []string
	// table renders objects (their JSON, as the kind encodes them) as the
	// server-side table kubectl prints.
	table func(s *Server, r *http.Request, items [][]byte, rv string) (metav1.Table, error)
	// register tells the watch hub about the resource; hasView says
	// whether Deps holds the view it reads.
	register func(h *watch.Hub) error
	hasView  bool
	// object is an object of the watch hub in its Kubernetes type, for
	// the media types other than JSON; newObject and newList are an empty
	// object of the kind and of its list.
	object             func(o *watch.Object) runtime.Object
	newObject, newList func() runtime.Object
}

// registerWatches tells the watch hub about every kind listed and
// watched through the shared helpers.
func (s *Server) registerWatches() error {
	if s.Watch == nil {
		return nil
	}
	for _, k := range s.served {
		res := k.list
		if res == nil {
			continue
		}
		if !res.hasView {
			return fmt.Errorf("httpapi: %s: Deps has no view of them to list and watch", res.name)
		}
		if err := res.register(s.Watch); err != nil {
			return fmt.Errorf("httpapi: %s: %w", res.name, err)
		}
	}
	return nil
}

// listing is how a kind's objects are listed and watched through the
// watch hub: the aggregate whose streams hold them, how its events fold,
// the view that holds them, and what selectors match.
type listing[S any] struct {
	aggregate *domain.Aggregate
	fold      func(S, events.Record) (S, error)
	// rows reads the view (see watch.Kind's Rows); hasView says whether
	// Deps has the view to read.
	rows    func(ctx context.Context, after string, limit int) ([]S, int64, error)
	hasView bool
	// exists says whether clients see an object (created and not
	// deleted); meta is its key, its resourceVersion and the labels label
	// selectors match.
	exists func(S) bool
	meta   func(S) (key domain.Key, rv int64, labels map[string]string)
	// fields are what field selectors match, and fieldLabels what they
	// may name, as kube-apiserver allows them for the resource; nil, they
	// are metadata.name and, for a namespaced kind, metadata.namespace.
	fields      func(S) fields.Fields
	fieldLabels []string
}

// metadataFields are the fields of an object that field selectors match
// when its kind names no others, as a value.
type metadataFields domain.Key

func (f metadataFields) Has(field string) bool {
	return field == "metadata.name" || field == "metadata.namespace"
}

func (f metadataFields) Get(field string) string {
	switch field {
	case "metadata.name":
		return f.Name
	case "metadata.namespace":
		return f.Namespace
	}
	return ""
}

// resource is the apiResource of o's kind, listed as l says.
func (l *listing[S]) resource(k *kind, toAPI func(S, int64) runtime.Object, newObject, newList func() runtime.Object) *apiResource {
	fieldsOf, fieldLabels := l.fields, l.fieldLabels
	if fieldsOf == nil {
		fieldsOf = func(st S) fields.Fields {
			key, _, _ := l.meta(st)
			return metadataFields(key)
		}
		fieldLabels = []string{"metadata.name"}
		if k.namespaced {
			fieldLabels = append(fieldLabels, "metadata.namespace")
		}
	}
	return &apiResource{
		name: k.resource, kind: k.name, apiVersion: k.gv.String(), namespaced: k.namespaced, hasView: l.hasView,
		object:      func(o *watch.Object) runtime.Object { return toAPI(o.State().(S), o.ResourceVersion) },
		newObject:   newObject,
		newList:     newList,
		fieldLabels: fieldLabels,
		register: func(h *watch.Hub) error {
			return watch.Register(h, &watch.Kind[S]{
				Resource: k.resource,
				Prefix:   l.aggregate.Prefix(),
				Fold:     l.fold,
				Meta: func(st S) (watch.Meta, bool) {
					if !l.exists(st) {
						return watch.Meta{}, false
					}
					key, _, labels := l.meta(st)
					return watch.Meta{Key: key.String(), Labels: labels, Fields: fieldsOf(st)}, true
				},
				// What a list and every watch event carry, encoded once per
				// object version: goccy/go-json writes encoding/json's bytes
				// (codec_json_test.go) in about half the time.
				Encode: func(st S, rv int64) ([]byte, error) { return gojson.Marshal(toAPI(st, rv)) },
				Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[S], int64, error) {
					sts, head, err := l.rows(ctx, after, limit)
					rows := make([]watch.Row[S], len(sts))
					for i, st := range sts {
						key, rv, _ := l.meta(st)
						rows[i] = watch.Row[S]{Key: key.String(), Stream: l.aggregate.Stream(key.String()), ResourceVersion: rv, State: st}
					}
					return rows, head, err
				},
			})
		},
	}
}

// nodeFields are the fields of a Node that field selectors match
// (kube-apiserver's field labels for nodes), as a value rather than a
// map: the watch hub keeps one for every node.
type nodeFields struct {
	name          string
	unschedulable bool
}

func (f nodeFields) Has(field string) bool {
	return field == "metadata.name" || field == "spec.unschedulable"
}

func (f nodeFields) Get(field string) string {
	switch field {
	case "metadata.name":
		return f.name
	case "spec.unschedulable":
		return strconv.FormatBool(f.unschedulable)
	}
	return ""
}
