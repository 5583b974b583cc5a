package domain

import "time"

// RestartReboot is the restart reason herd records when a node reports a
// new boot ID: the machine rebooted, whether or not it registered again.
const RestartReboot = "reboot"

// ReportedSystem is what a kubelet or a Pico reports about its machine in
// a status report, besides its conditions.
type ReportedSystem struct {
	// Info is the node's system info as it reports it now.
	Info NodeInfo
	// Addresses are the node's addresses as it reports them now; empty
	// leaves the known ones.
	Addresses []Address
	// KubeletPort is the port of its kubelet endpoint as it reports it
	// now (status.daemonEndpoints.kubeletEndpoint.Port); 0 leaves the
	// known one.
	KubeletPort int32
}

// reboot returns the NodeRestarted a heartbeat implies when it carries a
// boot ID other than the one herd knows, as Kubernetes' kubelet records a
// Rebooted event when the boot ID changes. A Pico that reboots posts its
// Node again, is told it exists (409), and goes on with status reports:
// the new boot ID is the only sign of its restart. The node's registration
// stays as it is except for its system info and, when reported, its
// addresses. A node whose boot ID herd never knew has nothing to compare
// with: no restart.
func (c RecordHeartbeat) reboot(n Node, now time.Time) (Event, bool) {
	s := c.System
	if s == nil || s.Info.BootID == "" || n.Info.BootID == "" || s.Info.BootID == n.Info.BootID {
		return nil, false
	}
	reg := n.registration()
	reg.Info = s.Info
	if len(s.Addresses) > 0 {
		reg.Addresses = cloneSlice(s.Addresses)
	}
	if s.KubeletPort > 0 {
		reg.KubeletPort = s.KubeletPort
	}
	return NodeRestarted{
		Registration: reg.clone(),
		RestartCount: n.RestartCount + 1,
		Reason:       RestartReboot,
		At:           now,
	}, true
}

// registration is what the node registered with, as it stands now; its
// derived labels are left to EvolveNode, as RegisterNode leaves them.
func (n Node) registration() Registration {
	return Registration{
		Name: n.Name, UID: n.UID, Kind: n.Kind,
		Labels: withoutDerivedLabels(n.Labels), Annotations: n.Annotations, Addresses: n.Addresses,
		Capacity: n.Capacity, Allocatable: n.Allocatable, Info: n.Info,
		MaxJobs: n.MaxJobs, KubeletPort: n.KubeletPort,
	}
}
