package projections

import "herd/domain"

// The shares of a node's CPU, memory, disk and PIDs in use, 0 to 1, as
// an agent's metrics (m) or a kubelet's summary (k) give them; ok is
// false when neither says. The per-node Prometheus series and a node's
// metric history (herd.dev's nodes/NAME/series) both read them here, so
// that a chart and an alert agree.

// CPUUsage is the share of the node's CPUs in use: an agent reports the
// percent busy since its last heartbeat; a kubelet's summary says how
// many nanocores are busy, and the node's capacity (cpuMillis) how many
// millicores it has.
func CPUUsage(m *domain.Metrics, k *domain.KubeletMetrics, cpuMillis int64) (float64, bool) {
	if m != nil && m.CPUPercent != nil {
		return *m.CPUPercent / 100, true
	}
	if k == nil || k.CPUUsageNanoCores == nil || cpuMillis <= 0 {
		return 0, false
	}
	return float64(*k.CPUUsageNanoCores) / (float64(cpuMillis) * 1e6), true
}

// MemoryUsage is the share of the node's memory in use: from an agent's
// total and available bytes, or from a kubelet's working set and
// available bytes (the kubelet's memory.available is capacity minus the
// working set, so their sum is what it counts as capacity).
func MemoryUsage(m *domain.Metrics, k *domain.KubeletMetrics) (float64, bool) {
	if m != nil && m.MemoryTotalBytes > 0 {
		return usedRatio(m.MemoryTotalBytes-m.MemoryAvailableBytes, m.MemoryTotalBytes), true
	}
	if k != nil && k.MemoryAvailableBytes != nil && k.MemoryWorkingSetBytes != nil {
		total := *k.MemoryAvailableBytes + *k.MemoryWorkingSetBytes
		if total > 0 {
			return float64(*k.MemoryWorkingSetBytes) / float64(total), true
		}
	}
	return 0, false
}

// DiskUsage is the share of the node's root filesystem in use (a
// kubelet's nodefs).
func DiskUsage(m *domain.Metrics, k *domain.KubeletMetrics) (float64, bool) {
	if m != nil && m.DiskTotalBytes > 0 {
		return usedRatio(m.DiskTotalBytes-m.DiskAvailableBytes, m.DiskTotalBytes), true
	}
	if k != nil && k.NodeFSAvailableBytes != nil && k.NodeFSCapacityBytes != nil && *k.NodeFSCapacityBytes > 0 {
		used := float64(*k.NodeFSCapacityBytes) - float64(*k.NodeFSAvailableBytes)
		return max(0, used) / float64(*k.NodeFSCapacityBytes), true
	}
	return 0, false
}

// PIDUsage is the share of the node's process IDs in use.
func PIDUsage(m *domain.Metrics, k *domain.KubeletMetrics) (float64, bool) {
	if m != nil && m.PIDsMax > 0 {
		return usedRatio(m.PIDsCurrent, m.PIDsMax), true
	}
	if k != nil && k.RlimitMaxPID != nil && k.RlimitCurProc != nil && *k.RlimitMaxPID > 0 {
		return usedRatio(*k.RlimitCurProc, *k.RlimitMaxPID), true
	}
	return 0, false
}

// usedRatio is used/total, never below 0 (an agent can report more
// available than total for a moment).
func usedRatio(used, total int64) float64 {
	return max(0, float64(used)) / float64(total)
}
