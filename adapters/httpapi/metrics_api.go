package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections/watch"
)

// nodeMetricsKind and podMetricsKind serve the resource metrics API,
// metrics.k8s.io/v1beta1, which `kubectl top` reads and metrics-server
// serves in a Kubernetes cluster: read-only, no watch, no table. herd
// serves it from the figures its nodes' heartbeats carry.
func (s *Server) nodeMetricsKind() *kind {
	return &kind{
		gv: metricsv1beta1.SchemeGroupVersion, resource: "nodes", name: "NodeMetrics",
		verbs: verbs{list: s.listNodeMetrics, get: s.getNodeMetrics},
	}
}

func (s *Server) podMetricsKind() *kind {
	return &kind{
		gv: metricsv1beta1.SchemeGroupVersion, resource: "pods", name: "PodMetrics", namespaced: true,
		verbs: verbs{list: s.listPodMetrics, get: s.getPodMetrics},
	}
}

// What field selectors on NodeMetrics and PodMetrics may name, as
// metrics-server allows.
var (
	nodeMetricsFields = &apiResource{name: "nodes.metrics.k8s.io", fieldLabels: []string{"metadata.name"}}
	podMetricsFields  = &apiResource{name: "pods.metrics.k8s.io", fieldLabels: []string{"metadata.name", "metadata.namespace"}}
)

// listNodeMetrics lists the NodeMetrics of every node herd has figures
// for, selected by labelSelector (the node's labels) and fieldSelector
// (metadata.name). Nodes without figures are left out, as metrics-server
// leaves out the nodes it could not scrape.
func (s *Server) listNodeMetrics(w http.ResponseWriter, r *http.Request) {
	sel, fsel, err := metricsListOptions(r, nodeMetricsFields)
	if err != nil {
		s.writeError(w, err, "", "")
		return
	}
	page, err := s.Watch.List(r.Context(), watch.ListRequest{Resource: "nodes", Match: func(o *watch.Object) bool {
		return sel.Matches(labels.Set(o.Meta.Labels)) && fsel.Matches(fields.Set{"metadata.name": o.Meta.Key})
	}})
	if err != nil {
		s.writeError(w, err, "", "")
		return
	}
	now := s.Clock.Now()
	list := metricsv1beta1.NodeMetricsList{Items: []metricsv1beta1.NodeMetrics{}}
	for _, o := range page.Items {
		if m, ok := conversions.NodeMetricsFromNode(o.State().(domain.Node), now); ok {
			list.Items = append(list.Items, m)
		}
	}
	s.writeObject(w, http.StatusOK, &list)
}

// getNodeMetrics is one node's NodeMetrics; 404 for a node herd does not
// know, and for one it has no figures for yet, saying so.
func (s *Server) getNodeMetrics(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	n, err := s.NodeView.Get(r.Context(), name)
	if errors.Is(err, domain.ErrNotFound) {
		err = apierrors.NewNotFound(metricsv1beta1.Resource("nodes"), name)
	}
	if err != nil {
		s.writeError(w, err, "", name)
		return
	}
	m, ok := conversions.NodeMetricsFromNode(n, s.Clock.Now())
	if !ok {
		s.writeError(w, noFigures(metricsv1beta1.Resource("nodes"), name,
			fmt.Sprintf("herd has no CPU and memory figures for node %q yet: its heartbeats have not reported both (a herd agent reports its CPU use once it has measured it between two samples, a kubelet with its summary; a Pico reports none)", name)), "", name)
		return
	}
	s.writeObject(w, http.StatusOK, &m)
}

// listPodMetrics answers with no PodMetrics: herd keeps no per-pod CPU
// and memory figures, so `kubectl top pod` says that metrics are not
// available rather than failing on a missing API.
func (s *Server) listPodMetrics(w http.ResponseWriter, r *http.Request) {
	if _, _, err := metricsListOptions(r, podMetricsFields); err != nil {
		s.writeError(w, err, "", "")
		return
	}
	s.writeObject(w, http.StatusOK, &metricsv1beta1.PodMetricsList{Items: []metricsv1beta1.PodMetrics{}})
}

// getPodMetrics is 404 for every pod, saying why for one that exists.
func (s *Server) getPodMetrics(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	_, err := s.PodView.Get(r.Context(), ns, name)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		err = apierrors.NewNotFound(metricsv1beta1.Resource("pods"), name)
	case err == nil:
		err = noFigures(metricsv1beta1.Resource("pods"), name,
			fmt.Sprintf("herd has no CPU and memory figures for pod %s/%s: it keeps none per pod", ns, name))
	}
	s.writeError(w, err, "", name)
}

// metricsListOptions reads the selectors of a list of metrics; a watch
// is refused, as metrics-server refuses it.
func metricsListOptions(r *http.Request, res *apiResource) (labels.Selector, fields.Selector, error) {
	if isWatch(r) {
		return nil, nil, &requestError{http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "watch is not supported on " + res.name}
	}
	q := r.URL.Query()
	sel, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		return nil, nil, badRequest("unable to parse labelSelector %q: %v", q.Get("labelSelector"), err)
	}
	fsel, err := resourceFieldSelector(q.Get("fieldSelector"), res)
	if err != nil {
		return nil, nil, err
	}
	return sel, fsel, nil
}

// noFigures is the 404 of metrics herd does not have, with why.
func noFigures(gr schema.GroupResource, name, why string) error {
	err := apierrors.NewNotFound(gr, name)
	err.ErrStatus.Message += ": " + why
	return err
}
