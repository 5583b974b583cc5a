package httpapi

import (
	"net/http"
	"runtime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// herd's own API group, for what Kubernetes has no resource for.
const (
	herdGroup   = "herd.dev"
	herdVersion = "v1"
)

// herdGV is herd's own group-version.
var herdGV = schema.GroupVersion{Group: herdGroup, Version: herdVersion}

// kubernetesVersion is the Kubernetes API level herd's core endpoints
// follow; kubectl compares it with its own to warn about skew.
const (
	kubernetesMajor = "1"
	kubernetesMinor = "33"
)

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	v := s.cfg.Version
	if v == "" {
		v = "dev"
	}
	s.writeJSON(w, http.StatusOK, version.Info{
		Major:      kubernetesMajor,
		Minor:      kubernetesMinor,
		GitVersion: "v" + kubernetesMajor + "." + kubernetesMinor + ".0+herd-" + v,
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
	})
}

// apiVersions answers /api. A client asking for aggregated discovery gets
// the legacy document with Content-Type application/json, which client-go
// takes as the sign to fall back to legacy discovery.
func (s *Server) apiVersions(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, http.StatusOK, metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
		Versions: []string{"v1"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
			{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host},
		},
	})
}

// apiGroup is an API group as discovery lists it, serving the one version
// it prefers.
func apiGroup(group, version string) metav1.APIGroup {
	gv := metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + version, Version: version}
	return metav1.APIGroup{Name: group, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}
}
