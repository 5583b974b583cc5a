package httpapi

import (
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// nodeSpecChange is what makes a node's spec, labels and annotations
// those of in, once in passes kube-apiserver's checks of them.
func nodeSpecChange(in corev1.Node) (domain.NodeCommand, error) {
	if err := conversions.ValidateNodeUpdate(&in); err != nil {
		return nil, err
	}
	spec := domain.SetNodeSpec{Unschedulable: in.Spec.Unschedulable}
	for _, t := range in.Spec.Taints {
		spec.Taints = append(spec.Taints, domain.Taint{Key: t.Key, Value: t.Value, Effect: domain.TaintEffect(t.Effect)})
	}
	return domain.NodeSequence{spec, domain.SetNodeLabels{
		// Labels go as sent: the domain refuses a change to one it derives.
		Labels: in.Labels, Annotations: conversions.WithoutHerdKeys(in.Annotations),
	}}, nil
}

// drainRequest is the body of a drain: an optional grace period that
// overrides every pod's own.
type drainRequest struct {
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
}

// drainCommand starts draining a node: cordoned, Draining, every pod
// evicted, with the request's grace period when it gives one.
func drainCommand(r *http.Request) (domain.NodeCommand, error) {
	var req drainRequest
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
	}
	return domain.DrainNode{GracePeriodSeconds: req.GracePeriodSeconds}, nil
}

// taintCommand puts one taint on a node, body {"key","value","effect"}.
func taintCommand(r *http.Request) (domain.NodeCommand, error) {
	var t struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Effect string `json:"effect"`
	}
	if err := decodeJSON(r, &t); err != nil {
		return nil, err
	}
	return domain.TaintNode{Taint: domain.Taint{Key: t.Key, Value: t.Value, Effect: domain.TaintEffect(t.Effect)}}, nil
}

// untaintNode removes the taints with a key, of one effect when
// ?effect= says so.
func (s *Server) untaintNode(w http.ResponseWriter, r *http.Request) {
	name, key := r.PathValue("name"), strings.TrimSuffix(r.PathValue("key"), "/")
	if _, err := s.NodeView.Get(r.Context(), name); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	n, err := s.Nodes.Execute(r.Context(), domain.Key{Name: name}, domain.UntaintNode{Key: key, Effect: domain.TaintEffect(r.URL.Query().Get("effect"))})
	if err != nil {
		// The node exists, so a NotFound here is about the taint.
		s.writeError(w, err, "Taint", key)
		return
	}
	s.writeNode(w, http.StatusOK, n)
}
