package projections

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// nodeSeriesDescs are the descriptions of NodeSeries' series. Every one
// is labelled by node and kind; a condition's adds condition and status,
// the agent state's adds state.
type nodeSeriesDescs struct {
	condition, agentState, cordoned    *prometheus.Desc
	cpu, memory, disk, pids, load1     *prometheus.Desc
	restarts, heartbeats, heartbeatAge *prometheus.Desc
	activeJobs, maxJobs                *prometheus.Desc
}

// nodeDescs are NodeSeries' descriptions; they are the same for every
// NodeSeries, so they are made once.
var nodeDescs = newNodeSeriesDescs()

func newNodeSeriesDescs() nodeSeriesDescs {
	d := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append([]string{"node", "kind"}, extra...), nil)
	}
	return nodeSeriesDescs{
		// One series per condition with its current status as a label
		// and the value 1, as kube-state-metrics' kube_node_status_condition
		// but without the two series of the statuses a condition does not
		// have: a third of the text, and `== 1` is never needed in a rule.
		condition:    d("herd_node_condition", "A condition of the node with its current status (True, False or Unknown); the value is always 1.", "condition", "status"),
		agentState:   d("herd_node_agent_state", "The node's agent state (Starting, Ready, Draining, Drained, Stopped, Lost); the value is always 1.", "state"),
		cordoned:     d("herd_node_cordoned", "1 while the node is cordoned (unschedulable), else 0."),
		cpu:          d("herd_node_cpu_usage_ratio", "Share of the node's CPUs in use, 0 to 1 (kubelet nodes: the summary's usageNanoCores over the node's CPU capacity)."),
		memory:       d("herd_node_memory_usage_ratio", "Share of the node's memory in use, 0 to 1 (agents: 1 - available/total; kubelets: workingSet/(workingSet + available))."),
		disk:         d("herd_node_disk_usage_ratio", "Share of the node's root filesystem in use, 0 to 1 (agents: the reported disk; kubelets: nodefs)."),
		pids:         d("herd_node_pid_usage_ratio", "Share of the node's process IDs in use, 0 to 1."),
		load1:        d("herd_node_load1", "The node's one-minute load average, as its agent reported it."),
		restarts:     d("herd_node_restarts_total", "Times the node registered again after its first registration (its restart count)."),
		heartbeats:   d("herd_node_heartbeats_total", "Heartbeats herd received from the node since herd started."),
		heartbeatAge: d("herd_node_heartbeat_age_seconds", "Seconds since the node's last heartbeat, by herd's clock at the scrape; absent until its first."),
		activeJobs:   d("herd_node_active_jobs", "Jobs (pods) the node's agent reported running."),
		maxJobs:      d("herd_node_max_jobs", "The most jobs herd places on the node; absent when it has no cap."),
	}
}

func (d nodeSeriesDescs) all() []*prometheus.Desc {
	return []*prometheus.Desc{d.condition, d.agentState, d.cordoned, d.cpu, d.memory, d.disk, d.pids, d.load1,
		d.restarts, d.heartbeats, d.heartbeatAge, d.activeJobs, d.maxJobs}
}

// collect sends n's series, with heartbeat ages as of now.
func (n namedSample) collect(ch chan<- prometheus.Metric, now time.Time) {
	d := nodeDescs
	gauge := func(desc *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, append([]string{n.name, n.kind}, extra...)...)
	}
	counter := func(desc *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, v, n.name, n.kind)
	}
	for _, c := range n.conditions {
		gauge(d.condition, 1, string(c.Type), string(c.Status))
	}
	if n.agentState != "" {
		gauge(d.agentState, 1, string(n.agentState))
	}
	gauge(d.cordoned, boolValue(n.unschedulable))
	if v, ok := n.cpuRatio(); ok {
		gauge(d.cpu, v)
	}
	if v, ok := n.memoryRatio(); ok {
		gauge(d.memory, v)
	}
	if v, ok := n.diskRatio(); ok {
		gauge(d.disk, v)
	}
	if v, ok := n.pidRatio(); ok {
		gauge(d.pids, v)
	}
	if n.metrics != nil {
		gauge(d.load1, n.metrics.Load1)
		gauge(d.activeJobs, float64(n.metrics.ActiveJobs))
	}
	if n.maxJobs > 0 {
		gauge(d.maxJobs, float64(n.maxJobs))
	}
	counter(d.restarts, float64(n.restarts))
	counter(d.heartbeats, float64(n.heartbeats))
	if !n.lastHeartbeat.IsZero() {
		gauge(d.heartbeatAge, max(0, now.Sub(n.lastHeartbeat).Seconds()))
	}
}

// cpuRatio is the share of the node's CPUs in use, where it is known: a
// kubelet's summary says how many nanocores are busy, and the node's
// capacity how many millicores it has. herd's agents report no CPU use.
func (n nodeSample) cpuRatio() (float64, bool) {
	if n.kubelet == nil || n.kubelet.CPUUsageNanoCores == nil || n.cpuMillis <= 0 {
		return 0, false
	}
	return float64(*n.kubelet.CPUUsageNanoCores) / (float64(n.cpuMillis) * 1e6), true
}

// memoryRatio is the share of the node's memory in use: from an agent's
// total and available bytes, or from a kubelet's working set and
// available bytes (the kubelet's memory.available is capacity minus the
// working set, so their sum is what it counts as capacity).
func (n nodeSample) memoryRatio() (float64, bool) {
	if m := n.metrics; m != nil && m.MemoryTotalBytes > 0 {
		return usedRatio(m.MemoryTotalBytes-m.MemoryAvailableBytes, m.MemoryTotalBytes), true
	}
	if k := n.kubelet; k != nil && k.MemoryAvailableBytes != nil && k.MemoryWorkingSetBytes != nil {
		total := *k.MemoryAvailableBytes + *k.MemoryWorkingSetBytes
		if total > 0 {
			return float64(*k.MemoryWorkingSetBytes) / float64(total), true
		}
	}
	return 0, false
}

// diskRatio is the share of the node's root filesystem in use.
func (n nodeSample) diskRatio() (float64, bool) {
	if m := n.metrics; m != nil && m.DiskTotalBytes > 0 {
		return usedRatio(m.DiskTotalBytes-m.DiskAvailableBytes, m.DiskTotalBytes), true
	}
	if k := n.kubelet; k != nil && k.NodeFSAvailableBytes != nil && k.NodeFSCapacityBytes != nil && *k.NodeFSCapacityBytes > 0 {
		used := float64(*k.NodeFSCapacityBytes) - float64(*k.NodeFSAvailableBytes)
		return max(0, used) / float64(*k.NodeFSCapacityBytes), true
	}
	return 0, false
}

// pidRatio is the share of the node's process IDs in use.
func (n nodeSample) pidRatio() (float64, bool) {
	if m := n.metrics; m != nil && m.PIDsMax > 0 {
		return usedRatio(m.PIDsCurrent, m.PIDsMax), true
	}
	if k := n.kubelet; k != nil && k.RlimitMaxPID != nil && k.RlimitCurProc != nil && *k.RlimitMaxPID > 0 {
		return usedRatio(*k.RlimitCurProc, *k.RlimitMaxPID), true
	}
	return 0, false
}

// usedRatio is used/total, never below 0 (an agent can report more
// available than total for a moment).
func usedRatio(used, total int64) float64 {
	return max(0, float64(used)) / float64(total)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
