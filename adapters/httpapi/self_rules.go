package httpapi

import (
	"net/http"

	authorizationv1 "k8s.io/api/authorization/v1"

	"herd/domain"
)

// selfSubjectRulesReview answers `kubectl auth can-i --list`: what the
// user's role allows, in the terms of the rules herd's authorizer applies
// (GroupAdmins and the other groups in auth.go). Rules that depend on an
// object's contents — the ConfigMaps granted to a node, the pods bound to
// it — cannot be listed, so a node's answer is incomplete, as
// kube-apiserver's is for its Node authorizer.
func (s *Server) selfSubjectRulesReview(w http.ResponseWriter, r *http.Request) {
	var in authorizationv1.SelfSubjectRulesReview
	if err := decodeObject(r, &in); err != nil {
		s.writeError(w, err, "SelfSubjectRulesReview", "")
		return
	}
	u, _ := UserFrom(r.Context())
	in.Status = rulesOf(u)
	s.writeObject(w, http.StatusCreated, &in)
}

// rulesOf lists what u may do.
func rulesOf(u User) authorizationv1.SubjectRulesReviewStatus {
	all := []string{"*"}
	reviews := []authorizationv1.ResourceRule{
		{Verbs: []string{"create"}, APIGroups: []string{authorizationGroup}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
		{Verbs: []string{"create"}, APIGroups: []string{authenticationGroup}, Resources: []string{"selfsubjectreviews"}},
	}
	discovery := authorizationv1.NonResourceRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/openapi", "/openapi/*", "/version", "/healthz", "/livez", "/readyz"}}
	st := authorizationv1.SubjectRulesReviewStatus{ResourceRules: reviews, NonResourceRules: []authorizationv1.NonResourceRule{discovery}}
	switch node, isNode := u.NodeName(); {
	case u.IsAdmin():
		st.ResourceRules = []authorizationv1.ResourceRule{{Verbs: all, APIGroups: all, Resources: all}}
		st.NonResourceRules = []authorizationv1.NonResourceRule{{Verbs: all, NonResourceURLs: all}}
	case u.IsViewer():
		st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{Verbs: []string{"get", "list", "watch"}, APIGroups: all, Resources: all})
		st.NonResourceRules = []authorizationv1.NonResourceRule{{Verbs: []string{"get"}, NonResourceURLs: all}}
	case isNode:
		self := []string{node}
		st.ResourceRules = append(st.ResourceRules,
			authorizationv1.ResourceRule{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"nodes"}},
			authorizationv1.ResourceRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"nodes"}, ResourceNames: self},
			authorizationv1.ResourceRule{Verbs: []string{"get", "patch", "update"}, APIGroups: []string{""}, Resources: []string{"nodes/status"}, ResourceNames: self},
			authorizationv1.ResourceRule{Verbs: []string{"create", "get", "patch", "update"}, APIGroups: []string{coordinationGroup}, Resources: []string{"leases"}, ResourceNames: self},
			authorizationv1.ResourceRule{Verbs: []string{"update", "delete"}, APIGroups: []string{herdGroup}, Resources: []string{"nodes/registration"}, ResourceNames: self},
			authorizationv1.ResourceRule{Verbs: []string{"create"}, APIGroups: []string{herdGroup}, Resources: []string{"nodes/heartbeat"}, ResourceNames: self},
		)
		st.Incomplete = true
		st.EvaluationError = "node " + node + " also reads the pods bound to it and the ConfigMaps granted to it (" + AnnotationReadableByNodes +
			"), which depend on each object; its lease is " + domain.NodeLeaseNamespace + "/" + node
	}
	if !u.IsViewer() {
		for _, g := range u.Groups {
			if g == GroupMonitoring {
				st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}})
			}
		}
	}
	return st
}
