// Package conversions is the one place where Kubernetes objects and herd's
// domain meet: Node, Pod and ConfigMap to and from their k8s.io/api shapes,
// the herd.dev/ labels and annotations that carry what Kubernetes has no
// field for, and the wire types of herd's own agent endpoints (heartbeat,
// termination step). The HTTP API renders and reads with it; herdclient,
// the kubelet poller and the CLI read what the API serves with it, so every
// edge speaks of one set of fields.
//
// Its functions are pure: no I/O, no clock, no HTTP status. conversions
// imports domain and the Kubernetes API types only; it must not import
// events, projections, reconcilers, any other adapter (httpapi least of
// all: the API depends on it, not the other way round) or cmd.
package conversions
