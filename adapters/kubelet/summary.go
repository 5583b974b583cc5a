package kubelet

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	"herd/domain"
)

// nodeSummary is what herd takes from a kubelet's /stats/summary.
type nodeSummary struct {
	// NodeName is the name the kubelet knows its node by.
	NodeName string
	// KubeletStarted is when the kubelet process started (its system
	// container's start time); zero when the summary does not say. A new
	// value means the kubelet restarted.
	KubeletStarted time.Time
	// Metrics are the heartbeat's figures.
	Metrics domain.KubeletMetrics
}

// decodeSummary reads a /stats/summary body. Fields the kubelet leaves
// out (or sends as null) stay unknown; only a body that is not a summary
// at all is an error.
func decodeSummary(body []byte) (nodeSummary, error) {
	var s statsapi.Summary
	if err := json.Unmarshal(body, &s); err != nil {
		return nodeSummary{}, fmt.Errorf("decode /stats/summary: %w", err)
	}
	return summaryOf(s), nil
}

// summaryOf maps a decoded summary to herd's figures. Every pointer may be
// nil.
func summaryOf(s statsapi.Summary) nodeSummary {
	n := s.Node
	out := nodeSummary{NodeName: n.NodeName}
	for _, c := range n.SystemContainers {
		if c.Name == statsapi.SystemContainerKubelet && !c.StartTime.IsZero() {
			out.KubeletStarted = c.StartTime.UTC()
		}
	}
	m := &out.Metrics
	if n.CPU != nil {
		m.CPUUsageNanoCores, m.CPUUsageCoreNanoSeconds = n.CPU.UsageNanoCores, n.CPU.UsageCoreNanoSeconds
	}
	if n.Memory != nil {
		m.MemoryAvailableBytes, m.MemoryWorkingSetBytes = n.Memory.AvailableBytes, n.Memory.WorkingSetBytes
	}
	if fs := n.Fs; fs != nil {
		m.NodeFSAvailableBytes, m.NodeFSCapacityBytes = fs.AvailableBytes, fs.CapacityBytes
		m.NodeFSInodesFree, m.NodeFSInodes = fs.InodesFree, fs.Inodes
	}
	if n.Runtime != nil && n.Runtime.ImageFs != nil {
		fs := n.Runtime.ImageFs
		m.ImageFSAvailableBytes, m.ImageFSCapacityBytes = fs.AvailableBytes, fs.CapacityBytes
		m.ImageFSInodesFree, m.ImageFSInodes = fs.InodesFree, fs.Inodes
	}
	if n.Rlimit != nil {
		m.RlimitMaxPID, m.RlimitCurProc = n.Rlimit.MaxPID, n.Rlimit.NumOfRunningProcesses
	}
	return out
}

// empty reports whether the summary holds no figure at all.
func (s nodeSummary) empty() bool { return s.Metrics == (domain.KubeletMetrics{}) }

// capacity is what the summary says the node has: memory (what the
// kubelet measures memory.available against) and the root filesystem.
func (s nodeSummary) capacity() domain.ResourceList {
	out := domain.ResourceList{}
	m := s.Metrics
	if m.MemoryAvailableBytes != nil && m.MemoryWorkingSetBytes != nil {
		out["memory"] = clampInt64(*m.MemoryAvailableBytes + *m.MemoryWorkingSetBytes)
	}
	if m.NodeFSCapacityBytes != nil {
		out["ephemeral-storage"] = clampInt64(*m.NodeFSCapacityBytes)
	}
	return out
}

// clampInt64 converts a kubelet's unsigned figure to herd's signed one; a
// figure beyond 2^63 is nonsense, kept at the largest herd can hold.
func clampInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
