package conversions

import (
	"maps"
	"strconv"
	"time"

	"herd/domain"
)

// Annotations herd adds to the Pods it serves: what a node's agent needs
// to run and stop a pod that Kubernetes' Pod has no field for. They are
// outputs, recomputed on every read; herd.dev/ annotations a client sends
// are dropped.
const (
	// The pod's address as IPAM gave it: the pool it came from, the
	// address (also status.podIP), the pool's prefix length and gateway.
	AnnotationNetworkPool         = "herd.dev/pod-network-pool"
	AnnotationNetworkIP           = "herd.dev/pod-network-ip"
	AnnotationNetworkPrefixLength = "herd.dev/pod-network-prefix-length"
	AnnotationNetworkGateway      = "herd.dev/pod-network-gateway"

	// The termination steps recorded so far (RFC 3339), on a pod being
	// deleted: a node's agent takes none of them twice.
	AnnotationShutdownRequestedAt = "herd.dev/shutdown-requested-at"
	AnnotationHaltedAt            = "herd.dev/halted-at"
	AnnotationStoppedAt           = "herd.dev/stopped-at"
	AnnotationDeprovisionedAt     = "herd.dev/deprovisioned-at"
)

// podAnnotations are the pod's own annotations plus herd's outputs: its
// zone, its address and its termination steps.
func podAnnotations(p domain.Pod) map[string]string {
	outputs := map[string]string{}
	add := func(k, v string) {
		if v != "" {
			outputs[k] = v
		}
	}
	if nw := p.Network; nw != nil {
		add(AnnotationNetworkPool, nw.Pool)
		add(AnnotationNetworkIP, nw.IP)
		add(AnnotationNetworkPrefixLength, strconv.Itoa(nw.PrefixLength))
		add(AnnotationNetworkGateway, nw.Gateway)
	}
	if d := p.Deletion; d != nil {
		add(AnnotationShutdownRequestedAt, stamp(d.ShutdownRequestedAt))
		add(AnnotationHaltedAt, stamp(d.HaltedAt))
		add(AnnotationStoppedAt, stamp(d.StoppedAt))
		add(AnnotationDeprovisionedAt, stamp(d.DeprovisionedAt))
	}
	base := zoneAnnotations(p.Annotations, p.Spec.Zone)
	if len(outputs) == 0 {
		return base
	}
	out := make(map[string]string, len(base)+len(outputs))
	maps.Copy(out, base)
	maps.Copy(out, outputs)
	return out
}

// stamp renders a time for an annotation; "" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
