package httpapi

import (
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// patchNode patches a node's spec and metadata, as kubectl cordon,
// uncordon, taint and label do: spec.unschedulable, spec.taints (the whole
// list, which Kubernetes replaces rather than merges), labels and
// annotations. Everything else in the patch is ignored: status comes from
// the node itself, through the status subresource or its agent.
func (s *Server) patchNode(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	patch, ct, err := objectPatch(r)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	strict := strictFields(r)
	n, err := s.Nodes.Execute(r.Context(), domain.Key{Name: name}, domain.RequireExists[domain.NodeCommand]{Command: domain.NodeFrom(func(n domain.Node) (domain.NodeCommand, error) {
		in, err := applyPatch(conversions.NodeToAPI(n), patch, ct, strict)
		if err != nil {
			return nil, err
		}
		return nodeSpecChange(n, in)
	})})
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.writeNode(w, http.StatusOK, n)
}

// updateNode is a PUT of a node, as client-go's Update sends it: the
// node's spec (unschedulable and taints), labels and annotations become
// what the body says, and the rest is ignored as a PATCH ignores it. A
// resourceVersion other than the node's is a conflict.
func (s *Server) updateNode(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var in corev1.Node
	if err := decodeObject(r, &in); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	if in.Name != "" && in.Name != name {
		s.writeError(w, badRequest("the name of the object (%s) does not match the name on the URL (%s)", in.Name, name), "Node", name)
		return
	}
	n, err := s.Nodes.Execute(r.Context(), domain.Key{Name: name}, domain.RequireExists[domain.NodeCommand]{Command: domain.Precondition[domain.NodeCommand]{
		ResourceVersion: in.ResourceVersion, Command: domain.NodeFrom(func(n domain.Node) (domain.NodeCommand, error) { return nodeSpecChange(n, in) })}})
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.writeNode(w, http.StatusOK, n)
}

// nodeSpecChange is what turns node n into in: its spec, labels and
// annotations, once in passes kube-apiserver's checks of them.
func nodeSpecChange(n domain.Node, in corev1.Node) (domain.NodeCommand, error) {
	if in.Name == "" {
		in.Name = n.Name
	}
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

// drainNode starts draining a node: cordoned, Draining, every pod evicted.
func (s *Server) drainNode(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var req drainRequest
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &req); err != nil {
			s.writeError(w, err, "Node", name)
			return
		}
	}
	s.nodeCommand(w, r, name, domain.DrainNode{GracePeriodSeconds: req.GracePeriodSeconds})
}

// undrainNode ends a drain.
func (s *Server) undrainNode(w http.ResponseWriter, r *http.Request) {
	s.nodeCommand(w, r, r.PathValue("name"), domain.UndrainNode{})
}

// taintNode puts one taint on a node, body {"key","value","effect"}.
func (s *Server) taintNode(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var t struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Effect string `json:"effect"`
	}
	if err := decodeJSON(r, &t); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.nodeCommand(w, r, name, domain.TaintNode{Taint: domain.Taint{Key: t.Key, Value: t.Value, Effect: domain.TaintEffect(t.Effect)}})
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

// nodeCommand runs one command on an existing node and answers with it.
func (s *Server) nodeCommand(w http.ResponseWriter, r *http.Request, name string, cmd domain.NodeCommand) {
	n, err := s.Nodes.Execute(r.Context(), domain.Key{Name: name}, cmd)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.writeNode(w, http.StatusOK, n)
}
