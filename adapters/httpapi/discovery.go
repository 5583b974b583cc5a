package httpapi

import (
	"net/http"
	"runtime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
)

// herd's own API group, for what Kubernetes has no resource for.
const (
	herdGroup   = "herd.dev"
	herdVersion = "v1"
)

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

func (s *Server) apiGroups(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups: []metav1.APIGroup{
			apiGroup(coordinationGroup, "v1"), apiGroup(eventsGroup, "v1"),
			apiGroup(herdGroup, herdVersion), apiGroup(metricsGroup, metricsVersion),
			apiGroup(authorizationGroup, "v1"), apiGroup(authenticationGroup, "v1"),
		},
	})
}

// apiGroup is an API group as discovery lists it, serving the one version
// it prefers.
func apiGroup(group, version string) metav1.APIGroup {
	gv := metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + version, Version: version}
	return metav1.APIGroup{Name: group, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}
}

// coordinationGroupInfo answers /apis/coordination.k8s.io.
func (s *Server) coordinationGroupInfo(w http.ResponseWriter, _ *http.Request) {
	g := apiGroup(coordinationGroup, "v1")
	g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	s.writeJSON(w, http.StatusOK, g)
}

// coordinationResources answers /apis/coordination.k8s.io/v1: leases.
func (s *Server) coordinationResources(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: coordinationGroup + "/v1",
		APIResources: coordinationAPIResources(),
	})
}

// coordinationAPIResources are the coordination.k8s.io/v1 resources herd
// serves: discovery lists them and the OpenAPI document describes them.
func coordinationAPIResources() []metav1.APIResource {
	return []metav1.APIResource{
		{Name: "leases", SingularName: "lease", Namespaced: true, Kind: "Lease",
			Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}},
	}
}

func (s *Server) coreResources(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: "v1",
		APIResources: coreAPIResources(),
	})
}

// coreAPIResources are the core/v1 resources herd serves: discovery lists
// them and the OpenAPI document describes them, from this one list.
func coreAPIResources() []metav1.APIResource {
	return []metav1.APIResource{
		{Name: "nodes", SingularName: "node", Kind: "Node", ShortNames: []string{"no"},
			Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{Name: "nodes/status", Kind: "Node", Verbs: metav1.Verbs{"get", "patch", "update"}},
		{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", ShortNames: []string{"ev"}, Verbs: metav1.Verbs{"get", "list", "watch"}},
		{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", ShortNames: []string{"po"},
			Categories: []string{"all"}, Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{Name: "pods/status", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"get", "patch", "update"}},
		// kubectl drain evicts through this subresource when discovery
		// offers it, with the group and version named here.
		{Name: "pods/eviction", Namespaced: true, Group: "policy", Version: "v1", Kind: "Eviction", Verbs: metav1.Verbs{"create"}},
		{Name: "pods/binding", Namespaced: true, Kind: "Binding", Verbs: metav1.Verbs{"create"}},
		{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", ShortNames: []string{"ns"},
			Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap", ShortNames: []string{"cm"},
			Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}},
		// Read-only and always empty: herd has no Services (services.go).
		{Name: "services", SingularName: "service", Namespaced: true, Kind: "Service", ShortNames: []string{"svc"},
			Categories: []string{"all"}, Verbs: metav1.Verbs{"get", "list"}},
	}
}

func (s *Server) herdResources(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: herdGroup + "/" + herdVersion,
		APIResources: []metav1.APIResource{
			{Name: "auditevents", SingularName: "auditevent", Kind: "AuditEvent", Verbs: metav1.Verbs{"list"}},
			{Name: "nodes/timeline", Kind: "NodeTimeline", Verbs: metav1.Verbs{"get"}},
			{Name: "nodes/heartbeat", Kind: "Heartbeat", Verbs: metav1.Verbs{"create"}},
			{Name: "nodes/drain", Kind: "Node", Verbs: metav1.Verbs{"create", "delete"}},
			{Name: "kubelettargets", SingularName: "kubelettarget", Kind: "KubeletTarget", Verbs: metav1.Verbs{"delete", "get", "list", "update"}},
			{Name: "nodes/taints", Kind: "Node", Verbs: metav1.Verbs{"create", "delete"}},
			{Name: "nodes/registration", Kind: "Node", Verbs: metav1.Verbs{"update", "delete"}},
			{Name: "pods/termination", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"create"}},
			{Name: "devicebindings", SingularName: "devicebinding", Kind: "DeviceBinding", Verbs: metav1.Verbs{"delete", "get", "list"}},
		},
	})
}
