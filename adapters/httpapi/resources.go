package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
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

func (s *Server) nodeResource() *apiResource {
	view := s.NodeView
	return &apiResource{
		name: "nodes", kind: "Node", apiVersion: "v1", hasView: view != nil,
		object: func(o *watch.Object) runtime.Object {
			n := nodeAt(o.State().(domain.Node), o.ResourceVersion)
			return &n
		},
		newObject: func() runtime.Object { return &corev1.Node{} },
		newList:   func() runtime.Object { return &corev1.NodeList{} },
		// kube-apiserver's field labels for nodes.
		fieldLabels: []string{"metadata.name", "spec.unschedulable"},
		register: func(h *watch.Hub) error {
			return watch.Register(h, &watch.Kind[domain.Node]{
				Resource: "nodes",
				Prefix:   domain.NodeAggregate.Prefix(),
				Fold:     projections.FoldNode,
				Meta: func(n domain.Node) (watch.Meta, bool) {
					if !n.Exists() {
						return watch.Meta{}, false
					}
					return watch.Meta{Key: n.Name, Labels: conversions.NodeLabels(n), Fields: nodeFields{n.Name, n.Unschedulable}}, true
				},
				Encode: func(n domain.Node, rv int64) ([]byte, error) {
					return json.Marshal(nodeAt(n, rv))
				},
				Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[domain.Node], int64, error) {
					nodes, head, err := view.Rows(ctx, after, limit)
					rows := make([]watch.Row[domain.Node], len(nodes))
					for i, n := range nodes {
						rows[i] = watch.Row[domain.Node]{Key: n.Name, Stream: domain.NodeStream(n.Name), ResourceVersion: n.ResourceVersion, State: n}
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

func (s *Server) podResource() *apiResource {
	view := s.PodView
	return &apiResource{
		name: "pods", kind: "Pod", apiVersion: "v1", namespaced: true, hasView: view != nil,
		object: func(o *watch.Object) runtime.Object {
			p := podAt(o.State().(domain.Pod), o.ResourceVersion)
			return &p
		},
		newObject:   func() runtime.Object { return &corev1.Pod{} },
		newList:     func() runtime.Object { return &corev1.PodList{} },
		fieldLabels: slices.Sorted(maps.Keys(podFieldLabels)),
		register: func(h *watch.Hub) error {
			return watch.Register(h, &watch.Kind[domain.Pod]{
				Resource: "pods",
				Prefix:   domain.PodAggregate.Prefix(),
				Fold:     projections.FoldPod,
				Meta: func(p domain.Pod) (watch.Meta, bool) {
					if !p.Exists() {
						return watch.Meta{}, false
					}
					return watch.Meta{Key: p.Key(), Labels: p.Labels, Fields: podFields(p)}, true
				},
				Encode: func(p domain.Pod, rv int64) ([]byte, error) {
					return json.Marshal(podAt(p, rv))
				},
				Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[domain.Pod], int64, error) {
					pods, head, err := view.Rows(ctx, after, limit)
					rows := make([]watch.Row[domain.Pod], len(pods))
					for i, p := range pods {
						rows[i] = watch.Row[domain.Pod]{Key: p.Key(), Stream: domain.PodStream(p.Namespace, p.Name), ResourceVersion: p.ResourceVersion, State: p}
					}
					return rows, head, err
				},
			})
		},
	}
}

func (s *Server) configMapResource() *apiResource {
	view := s.ConfigMapView
	return &apiResource{
		name: "configmaps", kind: "ConfigMap", apiVersion: "v1", namespaced: true, hasView: view != nil,
		object: func(o *watch.Object) runtime.Object {
			c := configMapAt(o.State().(domain.ConfigMap), o.ResourceVersion)
			return &c
		},
		newObject:   func() runtime.Object { return &corev1.ConfigMap{} },
		newList:     func() runtime.Object { return &corev1.ConfigMapList{} },
		fieldLabels: []string{"metadata.name", "metadata.namespace"},
		register: func(h *watch.Hub) error {
			return watch.Register(h, &watch.Kind[domain.ConfigMap]{
				Resource: "configmaps",
				Prefix:   domain.ConfigMapAggregate.Prefix(),
				Fold:     projections.FoldConfigMap,
				Meta: func(c domain.ConfigMap) (watch.Meta, bool) {
					if !c.Exists() {
						return watch.Meta{}, false
					}
					return watch.Meta{
						Key: c.Namespace + "/" + c.Name, Labels: conversions.ConfigMapToAPI(c).Labels,
						Fields: namespacedFields{c.Namespace, c.Name},
					}, true
				},
				Encode: func(c domain.ConfigMap, rv int64) ([]byte, error) {
					return json.Marshal(configMapAt(c, rv))
				},
				Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[domain.ConfigMap], int64, error) {
					cms, head, err := view.Rows(ctx, after, limit)
					rows := make([]watch.Row[domain.ConfigMap], len(cms))
					for i, c := range cms {
						rows[i] = watch.Row[domain.ConfigMap]{Key: c.Namespace + "/" + c.Name, Stream: domain.ConfigMapStream(c.Namespace, c.Name), ResourceVersion: c.ResourceVersion, State: c}
					}
					return rows, head, err
				},
			})
		},
	}
}

// nodeAt is n as clients see it at resourceVersion rv.
func nodeAt(n domain.Node, rv int64) corev1.Node {
	n.ResourceVersion = rv
	return conversions.NodeToAPI(n)
}

// podAt is p as clients see it at resourceVersion rv.
func podAt(p domain.Pod, rv int64) corev1.Pod {
	p.ResourceVersion = rv
	return conversions.PodToAPI(p)
}

// configMapAt is c as clients see it at resourceVersion rv.
func configMapAt(c domain.ConfigMap, rv int64) corev1.ConfigMap {
	c.ResourceVersion = rv
	return conversions.ConfigMapToAPI(c)
}

// writeNode answers with n in the negotiated media type.
func (s *Server) writeNode(w http.ResponseWriter, code int, n domain.Node) {
	kn := conversions.NodeToAPI(n)
	s.writeObject(w, code, &kn)
}

// writePod answers with p in the negotiated media type.
func (s *Server) writePod(w http.ResponseWriter, code int, p domain.Pod) {
	kp := conversions.PodToAPI(p)
	s.writeObject(w, code, &kp)
}

// writeConfigMap answers with c in the negotiated media type.
func (s *Server) writeConfigMap(w http.ResponseWriter, code int, c domain.ConfigMap) {
	kc := conversions.ConfigMapToAPI(c)
	s.writeObject(w, code, &kc)
}
