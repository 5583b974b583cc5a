package domain

import (
	"slices"
	"strings"
)

// unschedulablePrefix and unschedulableSep frame the Kubernetes scheduler's
// FitError message, "0/5 nodes are available: 3 Insufficient cpu, 2
// node(s) were not ready.": the node count, then each reason with how many
// nodes gave it.
const (
	unschedulablePrefix = "0/"
	unschedulableSep    = " nodes are available"
)

// UnschedulableReasons returns the reasons of an unschedulable message in
// the scheduler's FitError form, without their counts and sorted, and
// whether msg had that form at all. "0/48 nodes are available: 48
// Insufficient cpu." and "0/49 nodes are available: 49 Insufficient cpu."
// give the same reasons.
func UnschedulableReasons(msg string) ([]string, bool) {
	rest, ok := strings.CutPrefix(msg, unschedulablePrefix)
	if !ok {
		return nil, false
	}
	_, rest, ok = strings.Cut(rest, unschedulableSep)
	if !ok {
		return nil, false
	}
	rest = strings.TrimSuffix(rest, ".")
	rest, ok = strings.CutPrefix(rest, ": ")
	if !ok {
		return nil, rest == ""
	}
	var reasons []string
	for counted := range strings.SplitSeq(rest, ", ") {
		_, reason, ok := strings.Cut(counted, " ")
		if !ok {
			return nil, false
		}
		reasons = append(reasons, reason)
	}
	slices.Sort(reasons)
	return reasons, true
}

// SameUnschedulableReasons reports whether two unschedulable messages say
// the same thing but for their counts and for nodes' readiness: equal, or
// both in the FitError form with the same reasons once the readiness ones
// are set aside (see readinessReason). A pod that carries one need not
// record the other; the counts move with every node that comes and goes,
// and a node turns not-ready and Ready again with its heartbeats, neither
// of which a pending pod can act on: without this, one node registering
// (not Ready yet) and then turning Ready recorded two events for every
// pending pod. The reasons are recorded again when something an operator
// can act on changed, or when readiness is all there is to say.
func SameUnschedulableReasons(a, b string) bool {
	if a == b {
		return true
	}
	ra, okA := UnschedulableReasons(a)
	rb, okB := UnschedulableReasons(b)
	return okA && okB && slices.Equal(withoutReadiness(ra), withoutReadiness(rb))
}

// readinessReason reports whether a FitError reason is about a node's
// readiness: not Ready, or carrying the not-ready or unreachable taint
// that herd and Kubernetes put on such a node.
func readinessReason(reason string) bool {
	return reason == "node(s) were not ready" ||
		strings.HasPrefix(reason, "node(s) had untolerated taint {"+TaintNotReady+":") ||
		strings.HasPrefix(reason, "node(s) had untolerated taint {"+TaintUnreachable+":")
}

// withoutReadiness is reasons without the readiness ones, unless those
// are all there is.
func withoutReadiness(reasons []string) []string {
	rest := slices.DeleteFunc(slices.Clone(reasons), readinessReason)
	if len(rest) == 0 {
		return reasons
	}
	return rest
}
