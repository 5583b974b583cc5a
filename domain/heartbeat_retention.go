package domain

// Supersedes says whether heartbeat h, recorded later in the same node's
// stream than old, makes old state-free: everything old sets on the node
// (its time, the metrics it carries, the kubelet's figures) h sets again,
// so folding the node's stream without old gives the same node from h
// on. Other events between the two cannot depend on what old set: a
// condition change keeps its own times, and a registration or deletion
// starts the node afresh.
//
// This is what lets herd's retention policy delete old plain heartbeats:
// an agent's heartbeat supersedes the one before, but a heartbeat without
// metrics does not supersede one with them, because a nil leaves the
// node's latest metrics in place (see HeartbeatRecorded).
func (h HeartbeatRecorded) Supersedes(old HeartbeatRecorded) bool {
	return (old.Metrics == nil || h.Metrics != nil) && (old.Kubelet == nil || h.Kubelet != nil)
}

// Supersedes says whether event later, recorded after earlier in the same
// stream, makes earlier state-free, as herd's retention policy decides it:
// a heartbeat by HeartbeatRecorded.Supersedes, and a lease's renewal any
// renewal before it (it sets only the renew time). The retention policy
// and the what-if's thinned copy of the log both ask it.
func Supersedes(later, earlier Event) bool {
	switch l := later.(type) {
	case HeartbeatRecorded:
		e, ok := earlier.(HeartbeatRecorded)
		return ok && l.Supersedes(e)
	case LeaseRenewed:
		_, ok := earlier.(LeaseRenewed)
		return ok
	}
	return false
}
