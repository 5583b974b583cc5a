package httpapi

import (
	"net/http"
	"net/http/pprof"
	"slices"
	"strings"
)

// profilingRoutes serves Go's profiles under /debug/pprof/, as
// kube-apiserver does with --profiling: what an operator needs to see
// where herd spends its time under a real load. Only administrators may
// read them when herd requires tokens: a profile shows what herd runs and
// a CPU profile costs herd CPU while it runs.
func (s *Server) profilingRoutes() {
	m := routeMux{s}
	for path, h := range map[string]http.HandlerFunc{
		"/debug/pprof/":        pprof.Index,
		"/debug/pprof/cmdline": pprof.Cmdline,
		"/debug/pprof/profile": pprof.Profile,
		"/debug/pprof/symbol":  pprof.Symbol,
		"/debug/pprof/trace":   pprof.Trace,
	} {
		m.Handle("GET "+path, s.ruled(h))
	}
}

// ruled refuses h to whom nonResourceRule refuses its path: profiles to
// all but administrators, /metrics to all but those who read the fleet.
// Without a token file every request is anonymous, which is an
// administrator, as for the rest of the API.
func (s *Server) ruled(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := UserFrom(r.Context())
		if err := nonResourceRule(u, r.URL.Path); err != nil {
			s.writeError(w, err, "", "")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// nonResourceRule is who may read the paths that are no resource beyond
// what the gate allows every authenticated user: profiles are for
// administrators, /metrics for administrators, viewers and
// system:monitoring. Their handlers and `kubectl auth can-i` both ask it.
func nonResourceRule(u User, path string) error {
	switch {
	case strings.HasPrefix(path, "/debug/pprof"):
		if !u.IsAdmin() {
			return forbidden("user %q cannot read profiles: only the group %s may", u.Name, GroupAdmins)
		}
	case path == "/metrics":
		if !u.IsViewer() && !slices.Contains(u.Groups, GroupMonitoring) {
			return forbidden("user %q cannot read /metrics: only the groups %s, %s and %s may", u.Name, GroupAdmins, GroupViewers, GroupMonitoring)
		}
	}
	return nil
}
