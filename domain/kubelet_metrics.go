package domain

import "strconv"

// KubeletMetrics are what a kubelet's /stats/summary says about its node
// with each heartbeat. A kubelet leaves out what it cannot measure (no
// image filesystem, no memory limit, ...), so every figure is optional:
// nil is "not reported", which is not the same as 0 (a full disk).
type KubeletMetrics struct {
	// CPUUsageNanoCores is the node's CPU use, averaged over the
	// kubelet's sampling window, in billionths of a core.
	CPUUsageNanoCores *uint64 `json:"cpuUsageNanoCores,omitempty"`
	// CPUUsageCoreNanoSeconds is the node's cumulative CPU time.
	CPUUsageCoreNanoSeconds *uint64 `json:"cpuUsageCoreNanoSeconds,omitempty"`
	// MemoryAvailableBytes is what the kubelet's memory.available
	// eviction signal reads; MemoryWorkingSetBytes is what it subtracts.
	MemoryAvailableBytes  *uint64 `json:"memoryAvailableBytes,omitempty"`
	MemoryWorkingSetBytes *uint64 `json:"memoryWorkingSetBytes,omitempty"`
	// NodeFS* describe the node's root filesystem (nodefs.*).
	NodeFSAvailableBytes *uint64 `json:"nodefsAvailableBytes,omitempty"`
	NodeFSCapacityBytes  *uint64 `json:"nodefsCapacityBytes,omitempty"`
	NodeFSInodesFree     *uint64 `json:"nodefsInodesFree,omitempty"`
	NodeFSInodes         *uint64 `json:"nodefsInodes,omitempty"`
	// ImageFS* describe the container runtime's image filesystem
	// (imagefs.*), which may be the root filesystem.
	ImageFSAvailableBytes *uint64 `json:"imagefsAvailableBytes,omitempty"`
	ImageFSCapacityBytes  *uint64 `json:"imagefsCapacityBytes,omitempty"`
	ImageFSInodesFree     *uint64 `json:"imagefsInodesFree,omitempty"`
	ImageFSInodes         *uint64 `json:"imagefsInodes,omitempty"`
	// RlimitMaxPID and RlimitCurProc are the node's PID limit and the
	// processes running (pid.available is their difference).
	RlimitMaxPID  *int64 `json:"rlimitMaxPID,omitempty"`
	RlimitCurProc *int64 `json:"rlimitCurProc,omitempty"`
}

// clone returns a deep copy, or nil for nil.
func (m *KubeletMetrics) clone() *KubeletMetrics {
	if m == nil {
		return nil
	}
	return &KubeletMetrics{
		CPUUsageNanoCores:       clonePtr(m.CPUUsageNanoCores),
		CPUUsageCoreNanoSeconds: clonePtr(m.CPUUsageCoreNanoSeconds),
		MemoryAvailableBytes:    clonePtr(m.MemoryAvailableBytes),
		MemoryWorkingSetBytes:   clonePtr(m.MemoryWorkingSetBytes),
		NodeFSAvailableBytes:    clonePtr(m.NodeFSAvailableBytes),
		NodeFSCapacityBytes:     clonePtr(m.NodeFSCapacityBytes),
		NodeFSInodesFree:        clonePtr(m.NodeFSInodesFree),
		NodeFSInodes:            clonePtr(m.NodeFSInodes),
		ImageFSAvailableBytes:   clonePtr(m.ImageFSAvailableBytes),
		ImageFSCapacityBytes:    clonePtr(m.ImageFSCapacityBytes),
		ImageFSInodesFree:       clonePtr(m.ImageFSInodesFree),
		ImageFSInodes:           clonePtr(m.ImageFSInodes),
		RlimitMaxPID:            clonePtr(m.RlimitMaxPID),
		RlimitCurProc:           clonePtr(m.RlimitCurProc),
	}
}

// problems checks the figures that cannot be told apart from a broken
// report: a negative PID count or limit.
func (m *KubeletMetrics) problems() []FieldError {
	if m == nil {
		return nil
	}
	var errs []FieldError
	for _, f := range []struct {
		field string
		v     *int64
	}{{"kubelet.rlimitMaxPID", m.RlimitMaxPID}, {"kubelet.rlimitCurProc", m.RlimitCurProc}} {
		if f.v != nil && *f.v < 0 {
			errs = append(errs, FieldError{Field: f.field, Value: strconv.FormatInt(*f.v, 10), Reason: "must not be negative"})
		}
	}
	return errs
}

// clonePtr copies what p points to, or returns nil for nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
