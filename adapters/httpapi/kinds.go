package httpapi

import (
	"fmt"
	"net/http"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kinds are every resource herd serves, each described once in its own
// file. Everything that lists resources — routes, discovery, content
// negotiation, the OpenAPI documents, the watch hub — reads this list and
// nothing else.
func (s *Server) kinds() []*kind {
	ks := []*kind{
		s.nodeKind(), s.podKind(), s.namespaceKind(), s.configMapKind(), s.serviceKind(),
		s.coreEventKind(), s.eventKind(), s.leaseKind(), s.replicaSetKind(), s.deploymentKind(), s.daemonSetKind(), s.jobKind(), s.cronJobKind(), s.statefulSetKind(), s.controllerRevisionKind(),
		s.podDisruptionBudgetKind(),
		s.nodeMetricsKind(), s.podMetricsKind(),
		s.selfSubjectAccessReviewKind(), s.selfSubjectRulesReviewKind(), s.selfSubjectReviewKind(),
		s.auditEventKind(), s.kubeletTargetKind(), s.deviceBindingKind(),
	}
	if s.WhatIf != nil {
		ks = append(ks, s.whatIfKind())
	}
	return ks
}

// groupVersions are the group-versions the kinds are served under, in
// the order the kinds first name them, core/v1 first.
func groupVersions(kinds []*kind) []schema.GroupVersion {
	var out []schema.GroupVersion
	add := func(gv schema.GroupVersion) {
		if !slices.Contains(out, gv) {
			out = append(out, gv)
		}
	}
	add(schema.GroupVersion{Version: "v1"})
	for _, k := range kinds {
		add(k.gv)
		for _, sub := range k.subresources {
			add(sub.servedAt(k))
		}
	}
	return out
}

// resourcesAt is what discovery lists for gv: every resource and
// subresource served there.
func resourcesAt(kinds []*kind, gv schema.GroupVersion) []metav1.APIResource {
	var out []metav1.APIResource
	for _, k := range kinds {
		out = append(out, k.discovery(gv)...)
	}
	return out
}

// kindFor is the kind of a request's resource, by its group and name.
func (s *Server) kindFor(group, resource string) (*kind, bool) {
	k, ok := s.byResource[schema.GroupResource{Group: group, Resource: resource}]
	return k, ok
}

// discoveryRoutes serves discovery from the kinds: /api, /apis, each
// group and each group-version.
func (s *Server) discoveryRoutes(m routeMux) {
	m.HandleFunc("GET /api", s.apiVersions)
	m.HandleFunc("GET /apis", s.apiGroups)
	for _, gv := range groupVersions(s.served) {
		list := metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: gv.String(),
			APIResources: resourcesAt(s.served, gv),
		}
		m.HandleFunc("GET "+gvPath(gv), func(w http.ResponseWriter, _ *http.Request) {
			s.writeJSON(w, http.StatusOK, list)
		})
		if gv.Group == "" {
			continue
		}
		g := apiGroup(gv.Group, gv.Version)
		g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		m.HandleFunc("GET /apis/"+gv.Group, func(w http.ResponseWriter, _ *http.Request) {
			s.writeJSON(w, http.StatusOK, g)
		})
	}
}

// apiGroups answers /apis: every group a kind is served under.
func (s *Server) apiGroups(w http.ResponseWriter, _ *http.Request) {
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{}}
	for _, gv := range groupVersions(s.served) {
		if gv.Group != "" {
			list.Groups = append(list.Groups, apiGroup(gv.Group, gv.Version))
		}
	}
	s.writeJSON(w, http.StatusOK, list)
}

// indexKinds checks the kinds and indexes them by group and resource:
// two kinds serving one resource is a programming error.
func (s *Server) indexKinds() error {
	s.served = s.kinds()
	s.byResource = map[schema.GroupResource]*kind{}
	for _, k := range s.served {
		gr := k.groupResource()
		if s.byResource[gr] != nil {
			return fmt.Errorf("httpapi: %s is described twice", gr)
		}
		if k.list != nil && (k.list.name != k.resource || k.list.kind != k.name) {
			return fmt.Errorf("httpapi: %s lists %s of kind %s", gr, k.list.name, k.list.kind)
		}
		// Every Kubernetes kind that is read answers as a Table when
		// asked: its own columns, or kube-apiserver's default ones.
		if k.gv.Group != herdGroup && (k.verbs.get != nil || k.verbs.list != nil) {
			k.table = true
		}
		s.byResource[gr] = k
	}
	// A kind's subresources served under another group (herd's verbs
	// on nodes) are the kind's there too, unless a kind of that group
	// has the name.
	for _, k := range s.served {
		for _, sub := range k.subresources {
			gr := schema.GroupResource{Group: sub.servedAt(k).Group, Resource: k.resource}
			if s.byResource[gr] == nil {
				s.byResource[gr] = k
			}
		}
	}
	return nil
}
