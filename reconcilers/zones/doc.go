// Package zones runs herd's pods on a node's runtime — zones on illumos,
// the mock elsewhere. For every herd pod bound to a Ready node whose
// runtime is in this process, once IPAM has given the pod its address, it
// provisions and starts the pod and reports it Running and Ready, or
// Failed with the runtime's error; on every resync a pod whose zone
// vanished or stopped without being asked to fails with a reason saying
// so. Stopping pods is the termination reconciler's work, not this one's.
//
// The runtime sits behind the small Runtime interface declared here, the
// pods and nodes behind Pods: herd's views and domain commands in herd
// serve (Local), herd's HTTP API in `herd agent`, which runs the same
// reconciler for its own node.
package zones
