package kubelet

import (
	"fmt"
	"time"

	"herd/domain"
)

// Messages of NetworkUnavailable, with the threshold in them, not the
// rate, which moves on every poll while the status stands.
const (
	messageNetworkErrorsFmt    = "the node's network interfaces count more than %g receive and transmit errors per second"
	messageNetworkAvailableFmt = "the node's network interfaces count no more than %g receive and transmit errors per second"
)

// networkErrors follows the node's interface error counters from one
// /metrics/cadvisor read to the next.
type networkErrors struct {
	at    time.Time
	total float64
	// rate is the errors per second between the last two reads; known is
	// false until there were two.
	rate  float64
	known bool
}

// observe takes a read taken at now. Counters that went back (a reboot)
// start again from this read.
func (n *networkErrors) observe(s cadvisorSample, now time.Time) {
	if !s.NetworkKnown {
		*n = networkErrors{}
		return
	}
	elapsed := now.Sub(n.at).Seconds()
	if !n.at.IsZero() && s.NetworkErrors >= n.total && elapsed > 0 {
		n.rate, n.known = (s.NetworkErrors-n.total)/elapsed, true
	}
	n.at, n.total = now, s.NetworkErrors
}

// condition is NetworkUnavailable, false until two reads were taken.
func (n *networkErrors) condition(sig Signals) (domain.ReportedCondition, bool) {
	if !n.known {
		return domain.ReportedCondition{}, false
	}
	if n.rate > sig.NetworkErrorsPerSecond {
		return domain.ReportedCondition{Type: domain.ConditionNetworkUnavailable, Status: domain.ConditionTrue,
			Reason: domain.ReasonNetworkErrors, Message: fmt.Sprintf(messageNetworkErrorsFmt, sig.NetworkErrorsPerSecond)}, true
	}
	return domain.ReportedCondition{Type: domain.ConditionNetworkUnavailable, Status: domain.ConditionFalse,
		Reason: domain.ReasonNetworkAvailable, Message: fmt.Sprintf(messageNetworkAvailableFmt, sig.NetworkErrorsPerSecond)}, true
}
