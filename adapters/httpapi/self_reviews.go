package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
)

// The review APIs every authenticated user may call about itself, as
// kube-apiserver's system:basic-user role allows: `kubectl auth can-i`
// posts a SelfSubjectAccessReview (and, with --list, a
// SelfSubjectRulesReview), `kubectl auth whoami` a SelfSubjectReview.
// Nothing is stored; the answer is what herd's own authorizer decides.
const (
	authorizationGroup  = authorizationv1.GroupName
	authenticationGroup = authenticationv1.GroupName
)

// The reviews every authenticated user may create about itself: what it
// may do (kubectl auth can-i, --list) and who it is (kubectl auth whoami).
func (s *Server) selfSubjectAccessReviewKind() *kind {
	return &kind{gv: authorizationv1.SchemeGroupVersion, resource: "selfsubjectaccessreviews", singular: "selfsubjectaccessreview",
		name: "SelfSubjectAccessReview", verbs: verbs{create: s.selfSubjectAccessReview}}
}

func (s *Server) selfSubjectRulesReviewKind() *kind {
	return &kind{gv: authorizationv1.SchemeGroupVersion, resource: "selfsubjectrulesreviews", singular: "selfsubjectrulesreview",
		name: "SelfSubjectRulesReview", verbs: verbs{create: s.selfSubjectRulesReview}}
}

func (s *Server) selfSubjectReviewKind() *kind {
	return &kind{gv: authenticationv1.SchemeGroupVersion, resource: "selfsubjectreviews", singular: "selfsubjectreview",
		name: "SelfSubjectReview", verbs: verbs{create: s.selfSubjectReview}}
}

// isSelfReview says whether ri is one of the reviews every authenticated
// user may create about itself.
func isSelfReview(ri requestInfo) bool {
	if ri.Verb != "create" || ri.Name != "" {
		return false
	}
	switch ri.Group + "/" + ri.Resource {
	case authorizationGroup + "/selfsubjectaccessreviews", authorizationGroup + "/selfsubjectrulesreviews",
		authenticationGroup + "/selfsubjectreviews":
		return true
	}
	return false
}

// selfSubjectReview answers `kubectl auth whoami`: the user as herd
// authenticated it.
func (s *Server) selfSubjectReview(w http.ResponseWriter, r *http.Request) {
	var in authenticationv1.SelfSubjectReview
	if err := decodeObject(r, &in); err != nil {
		s.writeError(w, err, "SelfSubjectReview", "")
		return
	}
	u, _ := UserFrom(r.Context())
	in.Status.UserInfo = authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	s.writeObject(w, http.StatusCreated, &in)
}

// selfSubjectAccessReview answers `kubectl auth can-i`: the request the
// review describes is put to the gate that admitted this one, so the
// answer is the decision herd would make.
func (s *Server) selfSubjectAccessReview(w http.ResponseWriter, r *http.Request) {
	var in authorizationv1.SelfSubjectAccessReview
	if err := decodeObject(r, &in); err != nil {
		s.writeError(w, err, "SelfSubjectAccessReview", "")
		return
	}
	probe, ri, err := reviewedRequest(r, in.Spec)
	if err != nil {
		s.writeError(w, err, "SelfSubjectAccessReview", "")
		return
	}
	g, _ := r.Context().Value(gateKey{}).(gate)
	u, _ := UserFrom(r.Context())
	in.Status = decide(g, probe, u, ri)
	s.writeObject(w, http.StatusCreated, &in)
}

// decide puts the reviewed request to g. A create judged by the name in
// its body (a node registering itself, its lease) cannot be judged
// without one: it is allowed, as kube-apiserver's Node authorizer allows
// it and leaves the name to admission.
func decide(g gate, probe *http.Request, u User, ri requestInfo) authorizationv1.SubjectAccessReviewStatus {
	err := g.authorize(probe, u, ri)
	if err == nil && ri.Resource == "" {
		err = nonResourceRule(u, ri.Path)
	}
	switch {
	case err == nil:
		return authorizationv1.SubjectAccessReviewStatus{Allowed: true}
	case errors.Is(err, errEmptyBody):
		return authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "allowed for an object that names the node itself"}
	}
	return authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: err.Error()}
}

// reviewedRequest is the request a review's attributes describe, and its
// requestInfo, ready for a gate's authorize.
func reviewedRequest(r *http.Request, spec authorizationv1.SelfSubjectAccessReviewSpec) (*http.Request, requestInfo, error) {
	var ri requestInfo
	q := url.Values{}
	switch a := spec.ResourceAttributes; {
	case a != nil && spec.NonResourceAttributes != nil:
		return nil, ri, badRequest("spec: exactly one of resourceAttributes and nonResourceAttributes must be set")
	case a != nil:
		ri = requestInfo{Verb: a.Verb, Group: a.Group, Namespace: a.Namespace, Resource: a.Resource, Name: a.Name, Subresource: a.Subresource}
		if ri.Verb == "watch" {
			ri.Verb = "list"
			q.Set("watch", "true")
		}
		if a.FieldSelector != nil && a.FieldSelector.RawSelector != "" {
			q.Set("fieldSelector", a.FieldSelector.RawSelector)
		}
		ri.Path = resourceURLPath(ri, a.Version)
	case spec.NonResourceAttributes != nil:
		ri = requestInfo{Path: spec.NonResourceAttributes.Path, Verb: spec.NonResourceAttributes.Verb}
	default:
		return nil, ri, badRequest("spec: exactly one of resourceAttributes and nonResourceAttributes must be set")
	}
	if ri.Verb == "" {
		return nil, ri, badRequest("spec: the verb is required")
	}
	probe, err := http.NewRequestWithContext(r.Context(), methodOf(ri.Verb), (&url.URL{Path: ri.Path, RawQuery: q.Encode()}).String(), http.NoBody)
	if err != nil {
		return nil, ri, badRequest("spec: %v", err)
	}
	return probe, ri, nil
}

// resourceURLPath is the path a request for ri would take.
func resourceURLPath(ri requestInfo, version string) string {
	if version == "" || version == "*" {
		version = "v1"
	}
	parts := []string{"/apis", ri.Group, version}
	if ri.Group == "" {
		parts = []string{"/api", version}
	}
	if ri.Namespace != "" {
		parts = append(parts, "namespaces", ri.Namespace)
	}
	for _, p := range []string{ri.Resource, ri.Name, ri.Subresource} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/")
}

// methodOf is the HTTP method of a Kubernetes verb.
func methodOf(verb string) string {
	switch verb {
	case "create":
		return http.MethodPost
	case "update":
		return http.MethodPut
	case "patch":
		return http.MethodPatch
	case "delete", "deletecollection":
		return http.MethodDelete
	}
	return http.MethodGet
}
