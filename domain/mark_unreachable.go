package domain

import (
	"fmt"
	"slices"
	"time"
)

// Reasons and messages herd gives conditions it marks Unknown. They are
// Kubernetes' own (node lifecycle controller), so dashboards and alerts
// written for Kubernetes read herd's nodes unchanged.
const (
	ReasonNodeStatusUnknown      = "NodeStatusUnknown"
	MessageNodeStatusUnknown     = "Kubelet stopped posting node status."
	ReasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated"
	MessageNodeStatusNeverUpd    = "Kubelet never posted node status."
)

// healthConditions are the conditions that go Unknown when a node falls
// silent, in the order they are added to a node that never reported.
var healthConditions = []ConditionType{
	ConditionReady, ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure, ConditionHighLoad,
}

// reportedPressures are the conditions herd derives from what a node
// reports of its own load and use. Once the node stops reporting, cleanly
// or not, herd no longer knows them: they go Unknown, as Kubernetes'
// node lifecycle controller turns a silent node's conditions Unknown,
// rather than show the last reading as current. CPUPressure comes only
// from agents and kubelets that report CPU use, so a node that never
// reported is not given it.
var reportedPressures = []ConditionType{
	ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure, ConditionHighLoad, ConditionCPUPressure,
}

// MarkNodeUnreachable is the health rule's verdict that a node missed its
// deadline: every health condition goes Unknown. A node that never reported
// gets them all, with NodeStatusNeverUpdated. Conditions already Unknown
// keep their transition time; a node with nothing left to change records
// nothing, so repeated checks are harmless. A stopped node is expected to
// be silent and is left alone.
//
// The verdict holds only for the heartbeats it was judged by (LastHeard):
// a node herd has heard from since, by a status report stored on the node
// or a renewal stored on its lease, is not silent, and the mark records
// nothing. Decided with DecideNodeHeard, the mark weighs both as the
// unit of work that writes it has them committed; decided with
// DecideNode, the node's own reports alone.
type MarkNodeUnreachable struct {
	// Note is added to the condition messages, for instance to say that
	// herd suspects it is cut off itself.
	Note string
	// LastHeard is when herd last heard from the node, by its own
	// reports or its lease's renewals (domain.LastHeard), as the verdict
	// was judged: zero when it never heard from it. A stored heartbeat
	// later than it makes the mark a no-op; HeartbeatMissed records the
	// later of it and the node's own last report. Whether the node ever
	// posted its status is judged by its own reports, as Kubernetes
	// judges it.
	LastHeard time.Time
	// WithholdNoExecute leaves out the NoExecute unreachable taint, as
	// SyncConditionTaints does during a fleet disruption.
	WithholdNoExecute bool
	// DeferNoExecute leaves it out on a node that carries no NoExecute
	// taint of its Ready condition, as SyncConditionTaints does when the
	// eviction rate has not come to the node's turn.
	DeferNoExecute bool

	// leaseRenewedAt is the node's lease's stored renewal (Lease's
	// RenewedAt, zero when it has none), given by DecideNodeHeard.
	leaseRenewedAt time.Time
}

// MarkNodeUnreachableSince is the health rule's verdict on a node last
// heard from at lastHeard (LastHeard: by its own reports or its lease's
// renewals; zero when herd never heard from it): the mark judged by that
// heartbeat. A caller sets Note and WithholdNoExecute on it as it needs.
// Made this way, the mark cannot leave out the heartbeat it was judged
// by: a MarkNodeUnreachable written without LastHeard is a verdict on a
// node never heard from, a no-op on one that reported.
func MarkNodeUnreachableSince(lastHeard time.Time) MarkNodeUnreachable {
	return MarkNodeUnreachable{LastHeard: lastHeard}
}

func (c MarkNodeUnreachable) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if n.AgentState == AgentStopped {
		return nil, nil
	}
	if LastHeard(n, c.leaseRenewedAt).After(c.LastHeard) {
		// Heard from since the verdict: its deadline is the newer
		// heartbeat's, and the health rules judge it again by that.
		return nil, nil
	}
	reason, msg := ReasonNodeStatusUnknown, MessageNodeStatusUnknown
	never := n.LastHeartbeat.IsZero()
	if never {
		reason, msg = ReasonNodeStatusNeverUpdated, MessageNodeStatusNeverUpd
	}
	if c.Note != "" {
		msg = fmt.Sprintf("%s %s", msg, c.Note)
	}
	var changes []MissedCondition
	for _, t := range healthConditions {
		cur, ok := n.Condition(t)
		if (!ok && !never) || cur.Status == ConditionUnknown {
			continue
		}
		changes = append(changes, MissedCondition{Type: t, From: cur.Status})
	}
	if !never {
		// CPUPressure, the pressure beyond Kubernetes' own, when the
		// node reported it: stale as the rest.
		if cur, ok := n.Condition(ConditionCPUPressure); ok && cur.Status != ConditionUnknown {
			changes = append(changes, MissedCondition{Type: ConditionCPUPressure, From: cur.Status})
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	last := n.LastHeartbeat
	if c.LastHeard.After(last) {
		last = c.LastHeard
	}
	// One event says it all: the conditions gone Unknown, Ready no
	// longer True, and the unreachable taints that follow.
	missed := HeartbeatMissed{LastHeartbeat: last, Reason: reason, Message: msg, At: now, Conditions: changes,
		NotReady: conditionStatus(n, ConditionReady) == ConditionTrue}
	marked := EvolveNode(n, missed)
	for _, w := range desiredConditionTaints(marked, withholdsNoExecute(n, c.WithholdNoExecute, c.DeferNoExecute)) {
		if w.Key == TaintUnreachable && !n.HasTaint(w.Key, w.Effect) {
			w.TimeAdded = now
			missed.Taints = append(missed.Taints, w)
		}
	}
	return []Event{missed}, nil
}

func (MarkNodeUnreachable) weighsLease() bool { return true }

func (c MarkNodeUnreachable) withLeaseRenewal(renewedAt time.Time) NodeCommand {
	c.leaseRenewedAt = renewedAt
	return c
}

// leaseWeigher is a node command whose decision may weigh when its node's
// lease was last renewed: weighsLease says whether it does,
// withLeaseRenewal is the command with that renewal given.
type leaseWeigher interface {
	weighsLease() bool
	withLeaseRenewal(renewedAt time.Time) NodeCommand
}

// WeighsLease reports whether deciding cmd weighs when its node's lease
// was last renewed: a MarkNodeUnreachable does (a renewal since its
// verdict makes it a no-op), alone or inside an IfNodeReporting or a
// NodeSequence. Its executor then reads the lease's stored renewal in
// the unit of work that writes the node, and decides it with
// DecideNodeHeard.
func WeighsLease(cmd NodeCommand) bool {
	w, ok := cmd.(leaseWeigher)
	return ok && w.weighsLease()
}

func (c IfNodeReporting) weighsLease() bool { return WeighsLease(c.Command) }

func (c IfNodeReporting) withLeaseRenewal(renewedAt time.Time) NodeCommand {
	return IfNodeReporting{Command: withLeaseRenewal(c.Command, renewedAt)}
}

func (s NodeSequence) weighsLease() bool { return slices.ContainsFunc(s, WeighsLease) }

func (s NodeSequence) withLeaseRenewal(renewedAt time.Time) NodeCommand {
	out := make(NodeSequence, len(s))
	for i, c := range s {
		out[i] = withLeaseRenewal(c, renewedAt)
	}
	return out
}

// withLeaseRenewal is cmd with its node's lease renewal renewedAt given
// to whatever in it weighs one; cmd itself when nothing does.
func withLeaseRenewal(cmd NodeCommand, renewedAt time.Time) NodeCommand {
	if w, ok := cmd.(leaseWeigher); ok && w.weighsLease() {
		return w.withLeaseRenewal(renewedAt)
	}
	return cmd
}

// DecideNodeHeard is DecideNode for a command that weighs the node's
// lease (WeighsLease): it decides cmd on node n, whose lease's stored
// renewal is leaseRenewedAt (Lease's RenewedAt; zero when the node has
// no lease), at now. Like DecideNode it is a pure function of what it is
// given: the executor hands it the node and its lease as the write's
// unit of work has them committed, so the decision does not depend on
// when anything in memory heard of them.
func DecideNodeHeard(n Node, leaseRenewedAt time.Time, cmd NodeCommand, now time.Time) ([]Event, error) {
	return DecideNode(n, withLeaseRenewal(cmd, leaseRenewedAt), now)
}

// Silent reports whether a node has missed its deadline at now: its last
// heartbeat is older than grace or, never having reported, its
// registration is older than startupGrace. It is the rule the health check
// applies, in the same strict form as its query over the node view.
func Silent(lastHeartbeat, registeredAt, now time.Time, grace, startupGrace time.Duration) bool {
	if lastHeartbeat.IsZero() {
		return registeredAt.Before(now.Add(-startupGrace))
	}
	return lastHeartbeat.Before(now.Add(-grace))
}

// SilentSince is Silent for a watcher that has watched only since since
// (herd's health rules since their start): a node cannot have missed a
// deadline while nobody was there to hear it, so its last heartbeat, or
// its registration if it never reported, counts as no older than since.
// kube-controller-manager's node lifecycle controller does the same: a
// node it has not observed yet is taken as probed when it starts. A zero
// since is Silent.
func SilentSince(lastHeartbeat, registeredAt, since, now time.Time, grace, startupGrace time.Duration) bool {
	if lastHeartbeat.IsZero() {
		if registeredAt.Before(since) {
			registeredAt = since
		}
	} else if lastHeartbeat.Before(since) {
		lastHeartbeat = since
	}
	return Silent(lastHeartbeat, registeredAt, now, grace, startupGrace)
}

// ExpectedToReport reports whether n counts in the fleet disruption rule:
// registered, not deleted, not stopped.
func (n Node) ExpectedToReport() bool { return n.Exists() && n.AgentState != AgentStopped }

// pressuresUnknown turns Unknown, with reason and msg, each of types that
// node n has and that is not Unknown already: herd inferred it, no report
// said it.
func pressuresUnknown(n Node, types []ConditionType, reason, msg string, now time.Time) []NodeConditionChanged {
	var out []NodeConditionChanged
	for _, t := range types {
		cur, ok := n.Condition(t)
		if !ok || cur.Status == ConditionUnknown {
			continue
		}
		out = append(out, NodeConditionChanged{
			Type: t, From: cur.Status, Status: ConditionUnknown, Reason: reason, Message: msg, Inferred: true, At: now,
		})
	}
	return out
}
