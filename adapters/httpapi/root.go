package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rootPaths are the paths herd answers at, as / lists them
// (kube-apiserver's / lists its own the same way).
var rootPaths = []string{"/api", "/api/v1", "/apis", "/healthz", "/livez", "/metrics", "/openapi/v3", "/readyz", "/version"}

// root says what is here to whoever opens herd's address: a browser is
// sent to the web view; a client that asks for JSON gets the paths
// served, as kube-apiserver answers it (metav1.RootPaths); anything else
// (curl, say) a few lines of plain text naming the web view and the API,
// rather than a bare 404 that makes a working herd look broken.
func (s *Server) root(w http.ResponseWriter, r *http.Request) {
	accept := r.Header.Get("Accept")
	paths := rootPaths
	if s.UI != nil {
		if strings.Contains(accept, "text/html") {
			http.Redirect(w, r, UIPath, http.StatusFound)
			return
		}
		paths = append(paths[:len(paths):len(paths)], UIPath)
	}
	if strings.Contains(accept, "application/json") {
		s.writeJSON(w, http.StatusOK, metav1.RootPaths{Paths: paths})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	var b strings.Builder
	b.WriteString("herd: an event-sourced control plane for mixed fleets.\n\n")
	if s.UI != nil {
		fmt.Fprintf(&b, "The web view:       %s\n", UIPath)
	}
	b.WriteString("The Kubernetes API: /api/v1 and /apis (kubectl --server with this address, or herd kubeconfig)\n")
	b.WriteString("Health:             /healthz, /readyz; metrics: /metrics; version: /version\n")
	_, _ = w.Write([]byte(b.String()))
}
