package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"herd/domain"
)

// publicPaths answer anyone, with or without credentials, as
// kube-apiserver's system:public-info-viewer role allows: load balancers
// and process supervisors probe them.
var publicPaths = map[string]bool{"/healthz": true, "/livez": true, "/readyz": true, "/version": true}

// isPublic says whether a request answers anyone: the public paths, and
// the web view's static page and assets (read with GET), which hold no
// data: the page asks for a token and reads everything else through the
// API, as that user. "/" is public too, so that a browser is sent to the
// page before it has a token.
func isPublic(r *http.Request) bool {
	p := r.URL.Path
	if publicPaths[p] {
		return true
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return p == "/" || p == strings.TrimSuffix(UIPath, "/") || strings.HasPrefix(p, UIPath)
}

// mainGate guards the API listener: it authenticates every request with
// the configured Authenticator and authorizes it by the user's role.
type mainGate struct {
	s    *Server
	auth Authenticator
}

func (g mainGate) source() string { return "httpapi" }

func (g mainGate) authenticate(r *http.Request) (User, error) {
	if isPublic(r) && r.Header.Get("Authorization") == "" {
		return User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}, nil
	}
	return g.auth.Authenticate(r)
}

// authorize applies the roles (see GroupAdmins): admins do everything,
// viewers read, nodes act for themselves, and everyone authenticated reads
// discovery.
func (g mainGate) authorize(r *http.Request, u User, ri requestInfo) error {
	if u.IsAdmin() || isPublic(r) {
		return nil
	}
	readOnly := r.Method == http.MethodGet || r.Method == http.MethodHead
	if isSelfReview(ri) && u.Name != "system:anonymous" {
		return nil // kubectl auth can-i and whoami, for everyone authenticated
	}
	if ri.Resource == "" && readOnly && u.Name != "system:anonymous" {
		return nil // discovery: /api, /apis, /api/v1, /apis/herd.dev/v1
	}
	if u.IsViewer() && (readOnly || isWhatIf(ri)) {
		return nil // a what-if reads history and writes nothing
	}
	if node, ok := u.NodeName(); ok {
		return g.authorizeNode(r, ri, u, node)
	}
	return denied(ri, u, "")
}

// authorizeNode is Kubernetes' Node authorizer and NodeRestriction for a
// node's token, by the rule of the request's kind (kind.nodeRule): its
// own Node (create, read, status), its own Lease, herd's agent endpoints
// for its own name, the pods bound to it, and the ConfigMaps granted to
// it. A kind without a rule is refused.
func (g mainGate) authorizeNode(r *http.Request, ri requestInfo, u User, node string) error {
	if k, ok := g.s.kindFor(ri.Group, ri.Resource); ok && k.nodeRule != nil {
		return k.nodeRule(g, r, ri, u, node)
	}
	return denied(ri, u, "")
}

// authorizeNodeAsNode is what a node may do with nodes: create itself
// (with no label it may not set), list and watch itself alone, read its
// own node and status, report its status, and through herd's own verbs
// register, deregister and heartbeat.
func (g mainGate) authorizeNodeAsNode(r *http.Request, ri requestInfo, u User, node string) error {
	switch {
	case ri.Group == "" && ri.Name == "" && ri.Verb == "create":
		obj, err := peekObject(r, &corev1.Node{})
		if err != nil {
			return err
		}
		if name := obj.GetName(); name != node {
			return denied(ri, u, fmt.Sprintf("node %q cannot create node %q", node, name))
		}
		return restrictNodeLabels(node, nil, obj.GetLabels())
	case ri.Name == "" && (ri.Verb == "list" || ri.Verb == "watch"):
		if ri.Group == "" && selectsExactly(r, "metadata.name", node) {
			return nil
		}
		return denied(ri, u, fmt.Sprintf("node %q may only %s itself (fieldSelector=metadata.name=%s)", node, ri.Verb, node))
	case ri.Name != node:
		return denied(ri, u, fmt.Sprintf("node %q cannot %s node %q", node, ri.Verb, ri.Name))
	case ri.Group == "" && (ri.Verb == "get" && (ri.Subresource == "" || ri.Subresource == "status") ||
		(ri.Verb == "patch" || ri.Verb == "update") && ri.Subresource == "status"):
		return nil
	case ri.Group == herdGroup && (ri.Subresource == "registration" && (ri.Verb == "update" || ri.Verb == "delete") ||
		ri.Subresource == "heartbeat" && ri.Verb == "create"):
		return nil
	}
	return denied(ri, u, "")
}

// authorizeNodeConfigMap lets a node read the ConfigMaps granted to it.
func (g mainGate) authorizeNodeConfigMap(r *http.Request, ri requestInfo, u User, node string) error {
	if ri.Verb != "get" || ri.Name == "" {
		return denied(ri, u, "")
	}
	ok, err := g.s.configMapGranted(r, ri.Namespace, ri.Name, []string{node})
	if err != nil || ok {
		return err
	}
	return denied(ri, u, fmt.Sprintf("no relationship found between node %q and this object (grant it with the annotation %s)", node, AnnotationReadableByNodes))
}

// denied is the 403 for ri, worded and shaped as kube-apiserver's (a
// Forbidden Status whose details name the resource and the object), with
// the user's role and what it allows after the user's name, and why,
// when there is more to say than the role, at the end.
func denied(ri requestInfo, u User, why string) error {
	who := fmt.Sprintf("User %q (%s)", u.Name, roleOf(u))
	var msg string
	if ri.Resource == "" {
		msg = fmt.Sprintf("%s cannot %s path %q", who, ri.Verb, ri.Path)
	} else {
		scope := "at the cluster scope"
		if ri.Namespace != "" {
			scope = fmt.Sprintf("in the namespace %q", ri.Namespace)
		}
		msg = fmt.Sprintf("%s cannot %s resource %q in API group %q %s", who, ri.Verb, ri.resourcePath(), ri.Group, scope)
	}
	if why != "" {
		msg += ": " + why
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: ri.Group, Resource: ri.Resource}, ri.Name, errors.New(msg))
}

// roleOf names the herd roles u has and what they allow (see
// GroupAdmins), as a refusal tells the user: whether to ask for another
// role or use another token.
func roleOf(u User) string {
	if u.IsAdmin() {
		return "role admin: may do everything"
	}
	var roles []string
	if slices.Contains(u.Groups, GroupViewers) {
		roles = append(roles, "viewer: may get, list and watch every resource")
	}
	if node, ok := u.NodeName(); ok {
		roles = append(roles, fmt.Sprintf("node %q: may register and report for node %q only, renew its own lease, run the pods bound to it and read the ConfigMaps granted to it", node, node))
	}
	switch len(roles) {
	case 0:
		return fmt.Sprintf("no herd role: may read only discovery, /version and the health endpoints; herd's roles are the groups %s, %s and %s",
			GroupAdmins, GroupViewers, GroupNodes)
	case 1:
		if strings.HasPrefix(roles[0], "viewer:") {
			return "role " + roles[0] + ", and nothing else"
		}
		return "role " + roles[0]
	}
	return "roles " + strings.Join(roles, "; ")
}

// configMapGranted reports whether the ConfigMap exists and its
// AnnotationReadableByNodes matches one of names. A ConfigMap that does
// not exist is not granted: a node learns nothing of what it may not read.
func (s *Server) configMapGranted(r *http.Request, namespace, name string, names []string) (bool, error) {
	cm, err := s.ConfigMapView.Get(r.Context(), namespace, name)
	if errors.Is(err, domain.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return grantedTo(cm.Annotations[AnnotationReadableByNodes], names), nil
}

// grantedTo reports whether a comma-separated list of glob patterns
// matches one of names.
func grantedTo(patterns string, names []string) bool {
	for p := range strings.SplitSeq(patterns, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		for _, n := range names {
			if ok, _ := path.Match(p, n); ok {
				return true
			}
		}
	}
	return false
}

// peekObject reads the object's metadata from the body, decoded as into by the very
// decoder the handler uses (apimachinery's, case-sensitive, strict when
// fieldValidation=Strict asks), and puts the body back for the handler.
// One decoder for both is the point: encoding/json matches keys without
// regard to case, so a body with "name":"victim" and "Name":"n1" once
// passed this check as n1 and was stored as victim. A body that does not
// decode gets the handler's own 400 here; reading goes through the
// request's size limit, so an oversized body is refused here as it would
// be by the handler.
func peekObject(r *http.Request, into runtime.Object) (metav1.Object, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	defer func() { r.Body = io.NopCloser(bytes.NewReader(data)) }()
	obj, err := decodeBody(r, into)
	if err != nil {
		return nil, err
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, badRequest("the request body names no object: %v", err)
	}
	return acc, nil
}
