package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// herd's roles are expressed as groups, the way Kubernetes expresses
// them, so that a token file written for kube-apiserver reads the same:
//
//   - admin: the group herd:admins (or Kubernetes' system:masters) may do
//     everything;
//   - viewer: the group herd:viewers may read everything and change
//     nothing;
//   - node: the user system:node:NAME in the group system:nodes may
//     register and report for the node NAME only, and read only the
//     ConfigMaps granted to it (see AnnotationReadableByNodes), as
//     Kubernetes' Node authorizer and NodeRestriction allow a kubelet.
//
// A user with none of these groups may only read discovery, /version and
// the health endpoints.
const (
	GroupAdmins  = "herd:admins"
	GroupMasters = "system:masters"
	GroupViewers = "herd:viewers"
	GroupNodes   = "system:nodes"
	// GroupMonitoring may scrape /metrics and nothing else, as
	// Kubernetes' system:monitoring group: the credential to give
	// Prometheus.
	GroupMonitoring = "system:monitoring"
	// NodeUserPrefix starts the user name of a node's token:
	// system:node:NAME.
	NodeUserPrefix = "system:node:"
)

// AnnotationReadableByNodes on a ConfigMap grants node tokens, and devices
// on the device listener, read access to it: a comma-separated list of
// node-name glob patterns ("pico-*,sensor-01"), matched as path.Match
// does. A ConfigMap without it is readable by no node.
const AnnotationReadableByNodes = "herd.dev/readable-by-nodes"

// User is who sent a request, as authentication established it.
type User struct {
	// Name is the user name; it is the actor of every event the request
	// causes.
	Name string
	// UID is the user's id from the token file.
	UID string
	// Groups carry the user's roles.
	Groups []string
}

// Anonymous is the user of every request when herd runs without a token
// file: on loopback, or with --insecure-allow-anonymous. It is an admin.
var Anonymous = User{Name: "system:anonymous", Groups: []string{"system:unauthenticated", GroupAdmins}}

// IsAdmin reports whether the user may do everything.
func (u User) IsAdmin() bool {
	return slices.Contains(u.Groups, GroupAdmins) || slices.Contains(u.Groups, GroupMasters)
}

// IsViewer reports whether the user may read everything.
func (u User) IsViewer() bool { return u.IsAdmin() || slices.Contains(u.Groups, GroupViewers) }

// NodeName is the node a node token speaks for, and whether the user is a
// node at all.
func (u User) NodeName() (string, bool) {
	name, ok := strings.CutPrefix(u.Name, NodeUserPrefix)
	if !ok || name == "" || !slices.Contains(u.Groups, GroupNodes) {
		return "", false
	}
	return name, true
}

// Authenticator tells who sent a request.
type Authenticator interface {
	// Authenticate returns the request's user, or an error that maps to
	// 401 Unauthorized when the credentials are missing or wrong.
	Authenticate(r *http.Request) (User, error)
}

// AllowAnonymous is the Authenticator of a herd without a token file:
// every request is Anonymous, credentials or not.
type AllowAnonymous struct{}

// Authenticate implements Authenticator.
func (AllowAnonymous) Authenticate(*http.Request) (User, error) { return Anonymous, nil }

type userKey struct{}

// withUser returns ctx carrying the request's user.
func withUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user put in ctx for the request, and whether there
// is one.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// unauthorized is the error of a request without valid credentials.
func unauthorized(msg string) error {
	return &requestError{http.StatusUnauthorized, metav1.StatusReasonUnauthorized, msg}
}

// forbidden is the error of a request its user may not make, worded as
// kube-apiserver words it.
func forbidden(format string, args ...any) error {
	return &requestError{http.StatusForbidden, metav1.StatusReasonForbidden, fmt.Sprintf(format, args...)}
}
