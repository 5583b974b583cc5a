package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

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
	// key names an object; exists says whether clients see it (created
	// and not deleted); resourceVersion is its position.
	key             func(S) domain.Key
	exists          func(S) bool
	resourceVersion func(S) int64
	// labels and fields are what label and field selectors match;
	// fieldLabels the fields selectors may name, as kube-apiserver allows
	// them for the resource.
	labels      func(S) map[string]string
	fields      func(S) fields.Fields
	fieldLabels []string
}

// resource is the apiResource of o's kind, listed as l says.
func (l *listing[S]) resource(k *kind, toAPI func(S, int64) runtime.Object, newObject, newList func() runtime.Object) *apiResource {
	return &apiResource{
		name: k.resource, kind: k.name, apiVersion: k.gv.String(), namespaced: k.namespaced, hasView: l.hasView,
		object:      func(o *watch.Object) runtime.Object { return toAPI(o.State().(S), o.ResourceVersion) },
		newObject:   newObject,
		newList:     newList,
		fieldLabels: l.fieldLabels,
		register: func(h *watch.Hub) error {
			return watch.Register(h, &watch.Kind[S]{
				Resource: k.resource,
				Prefix:   l.aggregate.Prefix(),
				Fold:     l.fold,
				Meta: func(st S) (watch.Meta, bool) {
					if !l.exists(st) {
						return watch.Meta{}, false
					}
					return watch.Meta{Key: l.key(st).String(), Labels: l.labels(st), Fields: l.fields(st)}, true
				},
				Encode: func(st S, rv int64) ([]byte, error) { return json.Marshal(toAPI(st, rv)) },
				Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[S], int64, error) {
					sts, head, err := l.rows(ctx, after, limit)
					rows := make([]watch.Row[S], len(sts))
					for i, st := range sts {
						key := l.key(st).String()
						rows[i] = watch.Row[S]{Key: key, Stream: l.aggregate.Stream(key), ResourceVersion: l.resourceVersion(st), State: st}
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

// namespacedFields are metadata.name and metadata.namespace, the fields
// of a namespaced object that field selectors match, as a value.
type namespacedFields struct{ namespace, name string }

func (f namespacedFields) Has(field string) bool {
	return field == "metadata.name" || field == "metadata.namespace"
}

func (f namespacedFields) Get(field string) string {
	switch field {
	case "metadata.name":
		return f.name
	case "metadata.namespace":
		return f.namespace
	}
	return ""
}
