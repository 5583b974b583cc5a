// Package kubeletprobe is the reconciler that checks, from herd's side,
// that a node's advertised kubelet endpoint answers: GET /healthz on the
// node's InternalIP and its status.daemonEndpoints.kubeletEndpoint port,
// every interval, recorded as the KubeletReachable condition with the
// failure named in its message.
//
// It reads the node view and acts only through domain commands; the probe
// itself is plain HTTP. It must not import adapters.
package kubeletprobe
