// Package kubelet observes Kubernetes nodes through their kubelet's HTTP
// API: one poller per configured kubelet turns /healthz, /stats/summary,
// /pods, /configz, /spec, /metrics/resource, /metrics/probes,
// /metrics/cadvisor and /metrics into herd commands — the node's
// registration, machine and kubelet version, its heartbeats with the
// kubelet's own eviction signals and herd's reading of its CPU, CFS
// throttling, network error and container runtime figures as conditions,
// why herd cannot reach it, and the pods it runs.
//
// Every write goes through the Sink, the adapter's output port, whose
// production implementation issues domain commands through a repository;
// the package never writes a table. Parsing what a kubelet serves into
// herd's terms is done by pure functions (summary.go, eviction.go,
// pods.go, prometheus.go), tested against recorded responses in testdata/.
//
// The set of kubelets lives in the log (the kubelet/targets stream): herd's
// configuration is synced into it at start-up, the API adds and removes
// targets, and the Manager, a reconciler on that stream, starts and stops
// pollers to match.
//
// kubelet imports domain, events, projections, reconcilers and
// adapters/conversions; it must not import other adapters or anything
// under cmd.
package kubelet
