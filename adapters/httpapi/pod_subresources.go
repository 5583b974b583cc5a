package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"

	"herd/adapters/conversions"
	"herd/domain"
)

// podCommandFrom is how a PUT or PATCH turns the pod the client wants
// (in) into a command on the pod as it stands (p).
type podCommandFrom func(p domain.Pod, in corev1.Pod) (domain.PodCommand, error)

// updatePod is a PUT of a pod: its labels, annotations and finalizers may
// change; its spec may not.
func (s *Server) updatePod(w http.ResponseWriter, r *http.Request) { s.putPod(w, r, metadataChange) }

// patchPod patches a pod's metadata (kubectl label, annotate, and the
// removal of finalizers).
func (s *Server) patchPod(w http.ResponseWriter, r *http.Request) {
	s.patchPodWith(w, r, metadataChange)
}

// updatePodStatus is a PUT of the status subresource.
func (s *Server) updatePodStatus(w http.ResponseWriter, r *http.Request) {
	s.putPod(w, r, statusChange)
}

// patchPodStatus is a PATCH of the status subresource.
func (s *Server) patchPodStatus(w http.ResponseWriter, r *http.Request) {
	s.patchPodWith(w, r, statusChange)
}

// putPod decodes the pod a PUT sends and runs the command cmd makes of it;
// a stale resourceVersion is a conflict.
func (s *Server) putPod(w http.ResponseWriter, r *http.Request, cmd podCommandFrom) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	var in corev1.Pod
	if err := decodeObject(r, &in); err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	s.changePod(w, r, ns, name, func(p domain.Pod) (domain.PodCommand, error) {
		if in.ResourceVersion != "" && in.ResourceVersion != conversions.PodToAPI(p).ResourceVersion {
			return nil, staleObject("pods", name)
		}
		return cmd(p, in)
	})
}

// patchPodWith applies a PATCH to the pod as it stands and runs the
// command cmd makes of the result.
func (s *Server) patchPodWith(w http.ResponseWriter, r *http.Request, cmd podCommandFrom) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	patch, ct, err := objectPatch(r)
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	strict := strictFields(r)
	s.changePod(w, r, ns, name, func(p domain.Pod) (domain.PodCommand, error) {
		in, err := applyPatch(conversions.PodToAPI(p), patch, ct, strict)
		if err != nil {
			return nil, err
		}
		return cmd(p, in)
	})
}

// metadataChange is the command that turns p into in, refusing any change
// to the spec and metadata kube-apiserver would refuse.
func metadataChange(p domain.Pod, in corev1.Pod) (domain.PodCommand, error) {
	if in.Name == "" {
		in.Name = p.Name
	}
	if err := conversions.ValidatePodUpdate(&in); err != nil {
		return nil, err
	}
	was, _ := json.Marshal(conversions.PodToAPI(p).Spec)
	now, _ := json.Marshal(in.Spec)
	if string(was) != string(now) {
		return nil, &domain.InvalidError{Kind: "Pod", Name: p.Name, Fields: []domain.FieldError{{
			Field: "spec", Reason: "Forbidden: pod updates may not change fields other than metadata.labels, metadata.annotations and metadata.finalizers",
		}}}
	}
	return domain.SetPodMetadata{Labels: in.Labels, Annotations: conversions.WithoutHerdKeys(in.Annotations), Finalizers: in.Finalizers}, nil
}

// statusChange is the status report in carries, once it passes
// kube-apiserver's checks of a pod's status.
func statusChange(p domain.Pod, in corev1.Pod) (domain.PodCommand, error) {
	if in.Name == "" {
		in.Name = p.Name
	}
	if err := conversions.ValidatePodStatus(&in); err != nil {
		return nil, err
	}
	return domain.UpdatePodStatus{Status: conversions.PodStatusFromAPI(in.Status)}, nil
}

// evictPod is the policy/v1 Eviction subresource, which kubectl drain
// uses: the pod is marked as a disruption target and deleted gracefully
// with the grace period of the eviction's deleteOptions. herd has no
// disruption budgets, so an eviction is never refused with 429.
func (s *Server) evictPod(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	ev, err := decodeEviction(r)
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	if ev.Name != "" && ev.Name != name {
		s.writeError(w, badRequest("the name of the eviction (%s) does not match the pod (%s)", ev.Name, name), "Pod", name)
		return
	}
	var grace *int64
	if ev.DeleteOptions != nil {
		grace = ev.DeleteOptions.GracePeriodSeconds
	}
	s.deletePodWith(w, r, ns, name, grace, &domain.TargetPodDisruption{
		Reason: domain.ReasonEvictionByEvictionAPI, Message: "Eviction API: evicting",
	})
}

// bindPod is the binding subresource: a scheduler's decision.
func (s *Server) bindPod(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	var b corev1.Binding
	if err := decodeObject(r, &b); err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		s.writeError(w, badRequest("a binding's target must be a Node, not %q", b.Target.Kind), "Pod", name)
		return
	}
	if _, err := s.NodeView.Get(r.Context(), b.Target.Name); err != nil {
		s.writeError(w, fmt.Errorf("binding %s/%s: %w", ns, name, err), "Node", b.Target.Name)
		return
	}
	_, err := s.Pods.Execute(r.Context(), domain.Key{Namespace: ns, Name: name}, domain.BindPod{NodeName: b.Target.Name})
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	st := successStatus("pods", name)
	s.writeObject(w, http.StatusCreated, &st)
}

// changePod decides the command that decide derives from the pod's
// current state, inside the pod's transaction, and answers with the pod.
func (s *Server) changePod(w http.ResponseWriter, r *http.Request, ns, name string, decide func(domain.Pod) (domain.PodCommand, error)) {
	p, err := s.Pods.Execute(r.Context(), domain.Key{Namespace: ns, Name: name}, domain.RequireExists[domain.PodCommand]{Command: domain.PodFrom(decide)})
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	s.writePod(w, http.StatusOK, p)
}

// decodeEviction reads an Eviction of policy/v1 or, as kubectl drain sends
// it to a server it believes older, policy/v1beta1: the two have the same
// fields.
func decodeEviction(r *http.Request) (policyv1.Eviction, error) {
	var ev policyv1.Eviction
	obj, err := decodeBody(r, &ev)
	if err != nil {
		return ev, err
	}
	switch old := obj.(type) {
	case *policyv1.Eviction:
	case *policyv1beta1.Eviction:
		ev.ObjectMeta, ev.DeleteOptions = old.ObjectMeta, old.DeleteOptions
	default:
		return ev, badRequest("the body is a %s, not an Eviction", describeKind(obj))
	}
	return ev, nil
}
