package domain

import (
	"slices"
	"time"
)

// NodeKubeletEndpointChanged records that a node reported its kubelet at
// another port or address than herd knew: a Pico or a kubelet that
// restarted on a new port, a machine that got a new address. herd probes
// the endpoint the node reports now, as a Kubernetes API server reads
// status.daemonEndpoints from every status update, not only the first.
type NodeKubeletEndpointChanged struct {
	// KubeletPort is the port the node reports now; 0 leaves it as it was.
	KubeletPort int32 `json:"kubeletPort,omitempty"`
	// FromPort is the port herd knew before, 0 when none.
	FromPort int32 `json:"fromPort,omitempty"`
	// Addresses are the addresses the node reports now; empty leaves
	// them as they were.
	Addresses []Address `json:"addresses,omitempty"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (NodeKubeletEndpointChanged) EventType() string { return "NodeKubeletEndpointChanged" }

// endpointChange returns the NodeKubeletEndpointChanged a status report
// implies when it names a kubelet port or addresses other than the node's.
// A report that leaves them out changes nothing: a heartbeat without a
// daemonEndpoints is no news that the kubelet went away.
func (s *ReportedSystem) endpointChange(n Node, now time.Time) (Event, bool) {
	if s == nil {
		return nil, false
	}
	e := NodeKubeletEndpointChanged{FromPort: n.KubeletPort, At: now}
	if s.KubeletPort > 0 && s.KubeletPort != n.KubeletPort {
		e.KubeletPort = s.KubeletPort
	}
	if len(s.Addresses) > 0 && !slices.Equal(s.Addresses, n.Addresses) {
		e.Addresses = cloneSlice(s.Addresses)
	}
	if e.KubeletPort == 0 && e.Addresses == nil {
		return nil, false
	}
	return e, true
}

// apply sets the node's kubelet port and addresses from e.
func (e NodeKubeletEndpointChanged) apply(n Node) Node {
	if e.KubeletPort > 0 {
		n.KubeletPort = e.KubeletPort
	}
	if len(e.Addresses) > 0 {
		n.Addresses = cloneSlice(e.Addresses)
	}
	return n
}
