package domain

import (
	"maps"
	"time"
)

// KubeletTargetsStream is the log stream of the kubelets herd polls: one
// stream for the whole set, so that a change to it is one append checked
// against one version, as the fleet's health is.
var KubeletTargetsStream = KubeletTargetsAggregate.Stream("targets")

// KubeletTargetsAggregate is the set of kubelet targets in the log: its
// one stream and its events.
var KubeletTargetsAggregate = defineAggregate("kubelet",
	eventOf[KubeletTargetSet](1),
	eventOf[KubeletTargetRemoved](1),
)

// TargetSource says where a kubelet target was declared.
type TargetSource string

// The places a kubelet target can come from.
const (
	// SourceConfig: herd's configuration (--kubelet, --kubelet-config).
	// Such targets change only with the configuration.
	SourceConfig TargetSource = "config"
	// SourceAPI: added through herd's API, and removed the same way.
	SourceAPI TargetSource = "api"
)

// KubeletTarget is one kubelet herd polls: where it listens and how herd
// proves who it is. The target's name is the name of the node herd keeps
// for it. Files are named by absolute path and read when herd connects,
// never stored: a private key does not belong in the log.
type KubeletTarget struct {
	// Name is the node's name: a lowercase RFC 1123 subdomain.
	Name string `json:"name"`
	// URL is the kubelet's base URL: https://host:10250 for the
	// authenticated port, http://host:10255 for the read-only one, or a
	// proxy path such as https://apiserver/api/v1/nodes/NAME/proxy.
	URL string `json:"url"`
	// CAFile is a PEM bundle of the CAs that sign the kubelet's serving
	// certificate; empty means the system's roots (or CAData).
	CAFile string `json:"caFile,omitempty"`
	// CAData is the same bundle inline, as PEM text.
	CAData string `json:"caData,omitempty"`
	// ClientCertFile and ClientKeyFile are herd's client certificate and
	// key, both or neither.
	ClientCertFile string `json:"clientCertFile,omitempty"`
	ClientKeyFile  string `json:"clientKeyFile,omitempty"`
	// BearerTokenFile holds a bearer token, read before every poll so
	// that rotated service-account tokens are picked up.
	BearerTokenFile string `json:"bearerTokenFile,omitempty"`
	// InsecureSkipVerify accepts any serving certificate: for labs only.
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
	// Source is where the target was declared.
	Source TargetSource `json:"source"`
	// ResourceVersion is the log position of the last event that touched
	// the target. Set by the projection, not by Evolve.
	ResourceVersion int64 `json:"resourceVersion,omitempty"`
}

// sameSpec reports whether two targets poll the same way from the same
// source, whatever their resourceVersions.
func (t KubeletTarget) sameSpec(o KubeletTarget) bool {
	t.ResourceVersion, o.ResourceVersion = 0, 0
	return t == o
}

// KubeletTargets is the set of kubelets herd polls: the aggregate of
// KubeletTargetsStream. The view stores it as one row.
type KubeletTargets struct {
	// Targets by name.
	Targets map[string]KubeletTarget `json:"targets,omitempty"`
	// Version is the number of events in the stream.
	Version int64 `json:"version"`
}

// KubeletTargetSet records that a target was added or changed.
type KubeletTargetSet struct {
	Target KubeletTarget `json:"target"`
	At     time.Time     `json:"at"`
}

// KubeletTargetRemoved records that herd no longer polls the named kubelet.
type KubeletTargetRemoved struct {
	Name   string       `json:"name"`
	Source TargetSource `json:"source"`
	At     time.Time    `json:"at"`
}

// EventType implements Event.
func (KubeletTargetSet) EventType() string { return "KubeletTargetSet" }

// EventType implements Event.
func (KubeletTargetRemoved) EventType() string { return "KubeletTargetRemoved" }

// EvolveKubeletTargets folds one event into the set of targets. Like
// EvolveNode it never mutates ts: the map is copied when it changes.
func EvolveKubeletTargets(ts KubeletTargets, e Event) KubeletTargets {
	ts.Version++
	switch e := e.(type) {
	case KubeletTargetSet:
		m := maps.Clone(ts.Targets)
		if m == nil {
			m = map[string]KubeletTarget{}
		}
		t := e.Target
		t.ResourceVersion = ts.Targets[t.Name].ResourceVersion
		m[t.Name] = t
		ts.Targets = m
	case KubeletTargetRemoved:
		if _, ok := ts.Targets[e.Name]; ok {
			m := maps.Clone(ts.Targets)
			delete(m, e.Name)
			if len(m) == 0 {
				m = nil
			}
			ts.Targets = m
		}
	}
	return ts
}
