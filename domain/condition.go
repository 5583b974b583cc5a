package domain

import "time"

// ConditionType names a node condition, as Kubernetes does.
type ConditionType string

// The conditions herd derives or accepts.
const (
	ConditionReady              ConditionType = "Ready"
	ConditionMemoryPressure     ConditionType = "MemoryPressure"
	ConditionDiskPressure       ConditionType = "DiskPressure"
	ConditionPIDPressure        ConditionType = "PIDPressure"
	ConditionHighLoad           ConditionType = "HighLoad"
	ConditionNetworkUnavailable ConditionType = "NetworkUnavailable"
)

// ConditionStatus is True, False or Unknown, as in Kubernetes.
type ConditionStatus string

// The three condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Condition is one observed aspect of a node. LastHeartbeatTime moves with
// every report; LastTransitionTime only when Status changes. Both come from
// herd's clock, never from the node's. In a Node's Conditions a zero
// LastHeartbeatTime is the node's LastHeartbeat (see Node.ConditionsHeard).
type Condition struct {
	Type               ConditionType   `json:"type"`
	Status             ConditionStatus `json:"status"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
	LastHeartbeatTime  time.Time       `json:"lastHeartbeatTime"`
	LastTransitionTime time.Time       `json:"lastTransitionTime"`
}

// ReportedCondition is a condition a kubelet or a Pico computed itself. herd
// takes its status, reason and message, and ignores the node's timestamps.
type ReportedCondition struct {
	Type    ConditionType   `json:"type"`
	Status  ConditionStatus `json:"status"`
	Reason  string          `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
}

// Thresholds decide when an agent's metrics turn a pressure condition True.
// Comparisons are strict: a value exactly at the threshold is not pressure.
type Thresholds struct {
	// MemoryPercent: MemoryPressure when memory used > this % of total.
	MemoryPercent int64 `json:"memoryPercent"`
	// DiskPercent: DiskPressure when disk used > this % of total.
	DiskPercent int64 `json:"diskPercent"`
	// PIDPercent: PIDPressure when PIDs in use > this % of the maximum.
	PIDPercent int64 `json:"pidPercent"`
	// LoadPerCPU: HighLoad when load1 > this × CPU count.
	LoadPerCPU float64 `json:"loadPerCPU"`
	// CPUPercent: CPUPressure when CPU use > this % of the node's CPUs.
	CPUPercent int64 `json:"cpuPercent,omitempty"`
	// TransitionPeriod: how long a pressure condition (the three
	// pressures, HighLoad, CPUPressure) stays True once its signal is
	// back under the threshold, as the kubelet's
	// --eviction-pressure-transition-period. 0 holds nothing; it takes no
	// default from DefaultThresholds.
	TransitionPeriod time.Duration `json:"transitionPeriod,omitempty"`
}

// DefaultThresholds are herd's defaults: 90% for memory, disk and PIDs (the
// same share as the kubelet's default eviction signals leave roughly free
// on a typical host), a load average of twice the CPU count, and 80% CPU
// use (herd's own choice: Kubernetes has no CPU condition, and 80% leaves
// headroom for a burst while flagging a node that stays busy), and the
// kubelet's 5-minute pressure transition period.
var DefaultThresholds = Thresholds{MemoryPercent: 90, DiskPercent: 90, PIDPercent: 90, LoadPerCPU: 2, CPUPercent: 80,
	TransitionPeriod: DefaultPressureTransitionPeriod}
