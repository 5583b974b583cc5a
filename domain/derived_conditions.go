package domain

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// Reasons herd gives the conditions it derives from an agent's metrics, in
// the style of the kubelet's (KubeletReady, KubeletHasSufficientMemory, ...).
const (
	ReasonAgentReady            = "AgentReady"
	ReasonHasSufficientMemory   = "HasSufficientMemory"
	ReasonHasInsufficientMemory = "HasInsufficientMemory"
	ReasonHasNoDiskPressure     = "HasNoDiskPressure"
	ReasonHasDiskPressure       = "HasDiskPressure"
	ReasonHasSufficientPID      = "HasSufficientPID"
	ReasonHasInsufficientPID    = "HasInsufficientPID"
	ReasonNormalLoad            = "NormalLoad"
	ReasonHighLoad              = "HighLoad"
)

// conditionOrder is the order in which herd appends conditions a node did
// not have yet; types not listed follow in the order they were reported.
// NetworkUnavailable, which herd derives between CPUPressure and
// ServicesHealthy, is left out: a kubelet reports it too, and kubelet
// nodes keep it where they report it.
var conditionOrder = []ConditionType{
	ConditionReady, ConditionMemoryPressure, ConditionDiskPressure,
	ConditionPIDPressure, ConditionHighLoad,
	ConditionCPUPressure, ConditionServicesHealthy,
}

// withDefaults returns t with every zero field set from DefaultThresholds.
func (t Thresholds) withDefaults() Thresholds {
	d := DefaultThresholds
	return Thresholds{
		MemoryPercent: cmp.Or(t.MemoryPercent, d.MemoryPercent),
		DiskPercent:   cmp.Or(t.DiskPercent, d.DiskPercent),
		PIDPercent:    cmp.Or(t.PIDPercent, d.PIDPercent),
		LoadPerCPU:    cmp.Or(t.LoadPerCPU, d.LoadPerCPU),
		CPUPercent:    cmp.Or(t.CPUPercent, d.CPUPercent),
		// 0 means no hold, not "the default".
		TransitionPeriod: t.TransitionPeriod,
	}
}

// deriveConditions turns validated metrics into the conditions herd
// computes for its own agents, in conditionOrder: always Ready, the three
// pressures and HighLoad; CPUPressure, NetworkUnavailable and
// ServicesHealthy only when the agent reports CPU use, links and watched
// services. A node that reports metrics is heartbeating, hence Ready.
func deriveConditions(m Metrics, t Thresholds) []ReportedCondition {
	conds := []ReportedCondition{
		{
			Type: ConditionReady, Status: ConditionTrue,
			Reason: ReasonAgentReady, Message: "herd agent is posting ready status",
		},
		percentCondition(ConditionMemoryPressure, "memory used",
			m.MemoryTotalBytes-m.MemoryAvailableBytes, m.MemoryTotalBytes, t.MemoryPercent,
			ReasonHasSufficientMemory, ReasonHasInsufficientMemory),
		percentCondition(ConditionDiskPressure, "disk used",
			m.DiskTotalBytes-m.DiskAvailableBytes, m.DiskTotalBytes, t.DiskPercent,
			ReasonHasNoDiskPressure, ReasonHasDiskPressure),
		percentCondition(ConditionPIDPressure, "PIDs in use",
			m.PIDsCurrent, m.PIDsMax, t.PIDPercent,
			ReasonHasSufficientPID, ReasonHasInsufficientPID),
		loadCondition(m, t.LoadPerCPU),
	}
	if m.CPUPercent != nil {
		conds = append(conds, cpuCondition(*m.CPUPercent, t.CPUPercent))
	}
	if len(m.Links) > 0 {
		conds = append(conds, networkCondition(m.Links))
	}
	if len(m.Services) > 0 {
		conds = append(conds, servicesCondition(m.Services))
	}
	return conds
}

// percentCondition is True when used is strictly more than percent % of
// total. used, total and percent must not be negative, and total not zero.
// Its message names the threshold, not the reading, which would be stale
// by the next heartbeat.
func percentCondition(t ConditionType, what string, used, total, percent int64, okReason, pressureReason string) ReportedCondition {
	if exceedsPercent(used, total, percent) {
		return ReportedCondition{
			Type: t, Status: ConditionTrue, Reason: pressureReason,
			Message: fmt.Sprintf("%s above the %d%% threshold", what, percent),
		}
	}
	return ReportedCondition{
		Type: t, Status: ConditionFalse, Reason: okReason,
		Message: fmt.Sprintf("%s at or below the %d%% threshold", what, percent),
	}
}

// exceedsPercent reports whether used*100 > percent*total, exactly: the
// products are taken in 128 bits, so neither float rounding (at exactly 90%)
// nor overflow (at exabytes) can flip the answer. All arguments must be
// non-negative.
func exceedsPercent(used, total, percent int64) bool {
	uHi, uLo := bits.Mul64(uint64(used), 100)
	lHi, lLo := bits.Mul64(uint64(total), uint64(percent))
	return uHi > lHi || uHi == lHi && uLo > lLo
}

// loadCondition is HighLoad True when the one-minute load average is
// strictly above perCPU times the CPU count; its message names the
// threshold, not the reading.
func loadCondition(m Metrics, perCPU float64) ReportedCondition {
	limit := perCPU * float64(m.CPUCount)
	if m.Load1 > limit {
		return ReportedCondition{
			Type: ConditionHighLoad, Status: ConditionTrue, Reason: ReasonHighLoad,
			Message: fmt.Sprintf("load1 above the threshold of %g (%g per CPU, %d CPUs)", limit, perCPU, m.CPUCount),
		}
	}
	return ReportedCondition{
		Type: ConditionHighLoad, Status: ConditionFalse, Reason: ReasonNormalLoad,
		Message: fmt.Sprintf("load1 at or below the threshold of %g (%g per CPU, %d CPUs)", limit, perCPU, m.CPUCount),
	}
}

// inConditionOrder returns a copy of cs sorted by conditionOrder, types
// herd does not know last and in their reported order.
func inConditionOrder(cs []ReportedCondition) []ReportedCondition {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b ReportedCondition) int {
		return cmp.Compare(conditionRank(a.Type), conditionRank(b.Type))
	})
	return out
}

// conditionRank is t's place in conditionOrder, or len(conditionOrder).
func conditionRank(t ConditionType) int {
	if i := slices.Index(conditionOrder, t); i >= 0 {
		return i
	}
	return len(conditionOrder)
}
