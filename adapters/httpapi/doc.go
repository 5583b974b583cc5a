// Package httpapi is herd's Kubernetes-compatible HTTP API: Kubernetes paths
// and bodies in JSON, protobuf or CBOR (k8s.io/api types at the boundary,
// read and written by apimachinery's serializers, mapped to and from the
// domain) so that kubectl and client-go work unchanged, plus herd's own endpoints
// under the herd.dev API group (the audit log, node timelines, agent
// heartbeats) and /healthz, /readyz and /metrics.
//
// Every request body is size-limited and validated before a command runs;
// every error is a Kubernetes Status; a rejected request appends nothing.
//
// Kubernetes objects are mapped to and from the domain by
// adapters/conversions, which the other edges share. httpapi imports
// domain, events, projections and adapters/conversions; it must not import
// reconcilers or other adapters.
package httpapi
