package httpapi

import (
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// herd runs pods on its nodes but has no Services: nothing routes to pods
// by selector, and no cluster DNS names them. The services resource is
// served, read-only and always empty, so that what kubectl asks of every
// cluster works: `kubectl cluster-info` lists kube-system's cluster
// services (none) after naming herd as the control plane, and `kubectl get
// services` says there are none instead of that the resource type does
// not exist.

// serviceKind serves services read-only and always empty.
func (s *Server) serviceKind() *kind {
	return &kind{
		gv: corev1.SchemeGroupVersion, resource: "services", singular: "service", name: "Service",
		namespaced: true, shortNames: []string{"svc"}, categories: []string{"all"},
		verbs: verbs{list: s.listServices, get: s.getService},
	}
}

// listServices is an empty ServiceList at the log head, in one namespace
// or all.
func (s *Server) listServices(w http.ResponseWriter, r *http.Request) {
	if _, err := labelSelector(r); err != nil {
		s.writeError(w, err, "", "")
		return
	}
	head, err := s.Log.Head(r.Context())
	if err != nil {
		s.writeError(w, err, "", "")
		return
	}
	list := &corev1.ServiceList{Items: []corev1.Service{}}
	list.ResourceVersion = strconv.FormatInt(head, 10)
	s.writeObject(w, http.StatusOK, list)
}

// getService is 404 for every name: herd keeps no Services.
func (s *Server) getService(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.writeError(w, apierrors.NewNotFound(corev1.Resource("services"), name), "Service", name)
}
