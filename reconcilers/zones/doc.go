// Package zones runs herd's pods on a node's runtime — zones on illumos,
// the mock elsewhere. For every herd pod bound to a Ready node whose
// runtime is in this process, it provisions and starts the pod and reports
// it Running and Ready, or Failed with the runtime's error. Stopping pods
// is the termination reconciler's work, not this one's.
//
// The runtime sits behind the small Runtime interface declared here. It
// reads the node and pod views and writes only through domain commands.
package zones
