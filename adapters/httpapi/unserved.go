package httpapi

import (
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What herd does not serve, said plainly: a client that asks for it gets
// a Status naming what it asked for and why herd has none, instead of a
// bare 404 that reads like a typo. kubectl prints the message as it is.
var unserved = []unservedRoute{
	{"GET /api/v1/namespaces/{namespace}/pods/{name}/log",
		"herd keeps no container logs: its agents run pods on runtimes (zones, the mock runtime) whose output herd does not collect; read it on the node (a zone's console log with zlogin -C)",
		http.StatusNotFound, metav1.StatusReasonNotFound},
	{"/api/v1/namespaces/{namespace}/pods/{name}/exec",
		"herd cannot run commands in a pod's containers: it has no streaming connection to its nodes' runtimes; log in to the node (zlogin ZONE on illumos)",
		http.StatusNotFound, metav1.StatusReasonNotFound},
	{"/api/v1/namespaces/{namespace}/pods/{name}/attach",
		"herd cannot attach to a pod's containers: it has no streaming connection to its nodes' runtimes",
		http.StatusNotFound, metav1.StatusReasonNotFound},
	{"/api/v1/namespaces/{namespace}/pods/{name}/portforward",
		"herd cannot forward ports to a pod: it has no streaming connection to its nodes' runtimes; reach the pod at its address (kubectl get pod -o wide)",
		http.StatusNotFound, metav1.StatusReasonNotFound},
	{"POST /api/v1/namespaces/{namespace}/services",
		"herd has no Services: nothing routes to pods by selector and no cluster DNS names them; reach a pod at its address (kubectl get pods -o wide)",
		http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
	{"PUT /api/v1/namespaces/{namespace}/services/{name}", "herd has no Services to change", http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
	{"PATCH /api/v1/namespaces/{namespace}/services/{name}", "herd has no Services to change", http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
	{"DELETE /api/v1/namespaces/{namespace}/services/{name}", "herd has no Services to delete", http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
	{"/api/v1/namespaces/{namespace}/secrets",
		"herd has no Secrets: every object's data is written to its event log, which every viewer may read, so herd keeps none; give a node what it needs from its own host, and herd only what is not secret (ConfigMaps)",
		http.StatusNotFound, metav1.StatusReasonNotFound},
	{"/api/v1/namespaces/{namespace}/secrets/{name}", "herd has no Secrets", http.StatusNotFound, metav1.StatusReasonNotFound},
	{"/api/v1/namespaces/{namespace}/serviceaccounts",
		"herd has no ServiceAccounts: who may do what is its token file's users and groups (herd serve --token-auth-file), and pods get no credentials from herd",
		http.StatusNotFound, metav1.StatusReasonNotFound},
	{"/api/v1/namespaces/{namespace}/serviceaccounts/{name}", "herd has no ServiceAccounts", http.StatusNotFound, metav1.StatusReasonNotFound},
	{"/apis/rbac.authorization.k8s.io/",
		"herd has no RBAC objects: who may do what is its token file's users and their groups (herd serve --token-auth-file: herd:admins, herd:viewers, system:nodes)",
		http.StatusNotFound, metav1.StatusReasonNotFound},
	{"/apis/autoscaling/{version}/namespaces/{namespace}/horizontalpodautoscalers",
		"herd has no HorizontalPodAutoscalers: it keeps no per-pod figures to scale on; scale a workload with kubectl scale",
		http.StatusNotFound, metav1.StatusReasonNotFound},
}

// unservedRoute is a path herd has no answer for, and the Status it
// answers instead.
type unservedRoute struct {
	pattern, why string
	code         int
	reason       metav1.StatusReason
}

// unservedRoutes answers each of unserved with its Status.
func (s *Server) unservedRoutes(m routeMux) {
	for _, u := range unserved {
		m.Handle(u.pattern, readsNoBody(func(w http.ResponseWriter, r *http.Request) {
			s.writeStatus(w, metav1Status(int32(u.code), u.reason, fmt.Sprintf("%s %s: %s", r.Method, r.URL.Path, u.why))) //nolint:gosec // the codes are the constants above
		}))
	}
}
