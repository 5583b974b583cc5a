package kubelet

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"herd/domain"
)

// Messages of CPUThrottling, with the threshold and window in them.
const (
	messageNoThrottlingFmt = "no container was throttled in more than %g%% of its CPU periods for %s"
	messageThrottledFmt    = "throttled in more than %g%% of their CPU periods for %s: %s"
	messagePodThrottledFmt = "throttled in more than %g%% of its CPU periods for %s: %s"
)

// throttle is what herd knows of one container's throttling.
type throttle struct {
	// last are the counters of the last read.
	last cfsPeriods
	// since is the start of the run of reads in which the container was
	// throttled above the threshold; zero when the last read was not.
	since time.Time
	// share is the share of periods throttled in the last read; known is
	// false until a second read gave it one.
	share float64
	known bool
	// raised is when the container was called throttled, and at what
	// share; zero while it is not. Messages carry this share, so that a
	// condition is not changed by a figure that moves on every poll.
	raised      time.Time
	raisedShare float64
}

// throttling follows every container's CFS counters from one
// /metrics/cadvisor read to the next.
type throttling struct {
	// at is when the last read was taken (herd's clock); zero before one.
	at time.Time
	// known is true once two reads gave the containers a share.
	known      bool
	containers map[containerRef]*throttle
}

// observe takes a read taken at now. A container whose counters went back
// (a restart) starts again from this read; one that is gone is forgotten.
func (t *throttling) observe(s cadvisorSample, now time.Time, sig Signals) {
	if t.containers == nil {
		t.containers = map[containerRef]*throttle{}
	}
	first := t.at.IsZero()
	for ref, c := range s.CFS {
		th, ok := t.containers[ref]
		if !ok {
			t.containers[ref] = &throttle{last: c}
			continue
		}
		periods, throttled := c.Periods-th.last.Periods, c.Throttled-th.last.Throttled
		th.last = c
		if periods < 0 || throttled < 0 {
			*th = throttle{last: c}
			continue
		}
		th.share, th.known = 0, true
		if periods > 0 {
			th.share = throttled / periods * 100
		}
		if th.share <= sig.ThrottledPercent {
			th.since, th.raised, th.raisedShare = time.Time{}, time.Time{}, 0
			continue
		}
		if th.since.IsZero() {
			th.since = t.at
		}
		if th.raised.IsZero() && now.Sub(th.since) >= sig.ThrottledFor {
			th.raised, th.raisedShare = now, th.share
		}
	}
	maps.DeleteFunc(t.containers, func(ref containerRef, _ *throttle) bool {
		_, ok := s.CFS[ref]
		return !ok
	})
	t.known = t.known || !first
	t.at = now
}

// throttled names the throttled containers, sorted, each with the share
// it was throttled at when it was called throttled.
func (t *throttling) throttled() []string {
	var out []string
	for ref, th := range t.containers {
		if !th.raised.IsZero() {
			out = append(out, fmt.Sprintf("%s/%s/%s (%.0f%%)", ref.Namespace, ref.Pod, ref.Container, th.raisedShare))
		}
	}
	slices.Sort(out)
	return out
}

// condition is CPUThrottling, false until two reads were taken.
func (t *throttling) condition(sig Signals) (domain.ReportedCondition, bool) {
	if !t.known {
		return domain.ReportedCondition{}, false
	}
	if names := t.throttled(); len(names) > 0 {
		return domain.ReportedCondition{Type: domain.ConditionCPUThrottling, Status: domain.ConditionTrue,
			Reason:  domain.ReasonContainersThrottled,
			Message: fmt.Sprintf(messageThrottledFmt, sig.ThrottledPercent, sig.ThrottledFor, strings.Join(names, ", "))}, true
	}
	return domain.ReportedCondition{Type: domain.ConditionCPUThrottling, Status: domain.ConditionFalse,
		Reason: domain.ReasonNoCPUThrottling, Message: fmt.Sprintf(messageNoThrottlingFmt, sig.ThrottledPercent, sig.ThrottledFor)}, true
}

// podCondition is the CPUThrottled condition of pod namespace/name: True,
// naming its throttled containers, while any is; False once herd has
// figures for one of its containers and none is; and false (left out, so
// that the pod keeps what it had) while herd has none, as for a pod whose
// containers have no CPU limit, which cAdvisor gives no CFS figures for.
// herd dates its transitions (see domain.ObservePod).
func (t *throttling) podCondition(namespace, name string, sig Signals) (domain.PodCondition, bool) {
	var (
		names []string
		known bool
	)
	for ref, th := range t.containers {
		if ref.Namespace != namespace || ref.Pod != name {
			continue
		}
		known = known || th.known
		if !th.raised.IsZero() {
			names = append(names, fmt.Sprintf("%s (%.0f%%)", ref.Container, th.raisedShare))
		}
	}
	switch {
	case len(names) > 0:
		slices.Sort(names)
		return domain.PodCondition{Type: domain.PodConditionCPUThrottled, Status: domain.ConditionTrue,
			Reason:  domain.ReasonContainersThrottled,
			Message: fmt.Sprintf(messagePodThrottledFmt, sig.ThrottledPercent, sig.ThrottledFor, strings.Join(names, ", "))}, true
	case known:
		return domain.PodCondition{Type: domain.PodConditionCPUThrottled, Status: domain.ConditionFalse,
			Reason: domain.ReasonNoCPUThrottling, Message: fmt.Sprintf(messageNoThrottlingFmt, sig.ThrottledPercent, sig.ThrottledFor)}, true
	}
	return domain.PodCondition{}, false
}
