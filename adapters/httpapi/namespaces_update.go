package httpapi

import (
	"net/http"

	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// replaceNamespace is PUT /api/v1/namespaces/{name}, as `kubectl edit
// namespace` and client-go's Update send it: the namespace's labels and
// annotations become what the body says, conditional on its
// resourceVersion when it carries one. Spec and status are ignored, as
// kube-apiserver ignores them on an update; a namespace that does not
// exist is 404 (a PUT creates none).
func (s *Server) replaceNamespace(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	in, err := decodeNamespace(r, name)
	if err != nil {
		s.writeError(w, err, "Namespace", name)
		return
	}
	rv, err := preconditionVersion(in.ResourceVersion)
	if err != nil {
		s.writeError(w, err, "Namespace", name)
		return
	}
	cmd := conversions.UpdateNamespaceFromAPI(in, rv)
	s.updateNamespace(w, r, name, func(domain.Namespace) (domain.UpdateNamespace, error) { return cmd, nil })
}

// patchNamespace is PATCH with a JSON merge, strategic merge or JSON
// patch, as `kubectl label` and `kubectl annotate` send it, applied to the
// namespace as a client would GET it, inside the write's own transaction.
// A resourceVersion the patch writes is a precondition.
func (s *Server) patchNamespace(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := refuseDryRun(r); err != nil {
		s.writeError(w, err, "Namespace", name)
		return
	}
	patch, ct, err := patchBody(r)
	if err != nil {
		s.writeError(w, err, "Namespace", name)
		return
	}
	strict := strictFields(r)
	s.updateNamespace(w, r, name, func(cur domain.Namespace) (domain.UpdateNamespace, error) {
		out, err := applyPatch(conversions.NamespaceToAPI(cur), patch, ct, strict)
		if err != nil {
			return domain.UpdateNamespace{}, err
		}
		rv, err := preconditionVersion(out.ResourceVersion)
		if err != nil {
			return domain.UpdateNamespace{}, err
		}
		return conversions.UpdateNamespaceFromAPI(out, rv), nil
	})
}

// updateNamespace runs the update that next makes of the current
// namespace, in one transaction, and answers with the namespace as it
// then stands. A namespace that does not exist is 404 before next runs.
func (s *Server) updateNamespace(w http.ResponseWriter, r *http.Request, name string, next func(domain.Namespace) (domain.UpdateNamespace, error)) {
	ns, err := s.Namespaces.Execute(r.Context(), domain.Key{Name: name}, domain.RequireExists[domain.NamespaceCommand]{Command: domain.NamespaceFrom(func(ns domain.Namespace) (domain.NamespaceCommand, error) {
		return next(ns)
	})})
	if err != nil {
		s.writeError(w, err, "Namespace", name)
		return
	}
	s.writeNamespace(w, r, http.StatusOK, ns)
}

// decodeNamespace reads the Namespace body of a PUT to name. Its name
// may be left out; another name, or another kind, is refused.
func decodeNamespace(r *http.Request, name string) (corev1.Namespace, error) {
	var in corev1.Namespace
	if err := refuseDryRun(r); err != nil {
		return in, err
	}
	if err := decodeObject(r, &in); err != nil {
		return in, err
	}
	if in.Name == "" {
		in.Name = name
	}
	if in.Name != name {
		return in, badRequest("the name of the object (%s) does not match the name on the URL (%s)", in.Name, name)
	}
	return in, nil
}
