package projections

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"herd/domain"
)

// nodeLabels label every per-node series.
var nodeLabels = []string{"node", "kind"}

// The two series that carry a label of their own besides node and kind.
var (
	// conditionDesc is one series per condition with its current status
	// as a label and the value 1, as kube-state-metrics'
	// kube_node_status_condition but without the two series of the
	// statuses the condition does not have: a third of the text, and a
	// rule selects the status it means without comparing values.
	conditionDesc = prometheus.NewDesc("herd_node_condition",
		"A condition of the node with its current status (True, False or Unknown); the value is always 1.",
		[]string{"node", "kind", "condition", "status"}, nil)
	// agentStateDesc is the node's agent state in the same shape.
	agentStateDesc = prometheus.NewDesc("herd_node_agent_state",
		"The node's agent state (Starting, Ready, Draining, Drained, Stopped, Lost); the value is always 1.",
		[]string{"node", "kind", "state"}, nil)
)

// nodeFamily is one per-node series labelled by node and kind only, and
// how its value comes from a node's sample (false: the node has none).
type nodeFamily struct {
	desc  *prometheus.Desc
	typ   prometheus.ValueType
	value func(n *nodeSample, now time.Time) (float64, bool)
}

// nodeFamilies are the series labelled by node and kind only.
var nodeFamilies = []nodeFamily{
	family("herd_node_cordoned", "1 while the node is cordoned (unschedulable), else 0.", prometheus.GaugeValue,
		func(n *nodeSample, _ time.Time) (float64, bool) { return boolValue(n.unschedulable), true }),
	family("herd_node_cpu_usage_ratio", "Share of the node's CPUs in use, 0 to 1 (agents: their CPU use since the last heartbeat; kubelet nodes: the summary's usageNanoCores over the node's CPU capacity).", prometheus.GaugeValue,
		func(n *nodeSample, _ time.Time) (float64, bool) { return n.cpuRatio() }),
	family("herd_node_memory_usage_ratio", "Share of the node's memory in use, 0 to 1 (agents: 1 - available/total; kubelets: workingSet/(workingSet + available)).", prometheus.GaugeValue,
		func(n *nodeSample, _ time.Time) (float64, bool) { return n.memoryRatio() }),
	family("herd_node_disk_usage_ratio", "Share of the node's root filesystem in use, 0 to 1 (agents: the reported disk; kubelets: nodefs).", prometheus.GaugeValue,
		func(n *nodeSample, _ time.Time) (float64, bool) { return n.diskRatio() }),
	family("herd_node_pid_usage_ratio", "Share of the node's process IDs in use, 0 to 1.", prometheus.GaugeValue,
		func(n *nodeSample, _ time.Time) (float64, bool) { return n.pidRatio() }),
	family("herd_node_load1", "The node's one-minute load average, as its agent reported it.", prometheus.GaugeValue,
		func(n *nodeSample, _ time.Time) (float64, bool) {
			if n.metrics == nil {
				return 0, false
			}
			return n.metrics.Load1, true
		}),
	family("herd_node_active_jobs", "Jobs the node's agent reported: its pods running, and batch Job pods waiting to start there.", prometheus.GaugeValue,
		func(n *nodeSample, _ time.Time) (float64, bool) {
			if n.metrics == nil {
				return 0, false
			}
			return float64(n.metrics.ActiveJobs), true
		}),
	family("herd_node_max_jobs", "The most jobs herd places on the node; absent when it has no cap.", prometheus.GaugeValue,
		func(n *nodeSample, _ time.Time) (float64, bool) { return float64(n.maxJobs), n.maxJobs > 0 }),
	family("herd_node_restarts_total", "Times the node registered again after its first registration (its restart count).", prometheus.CounterValue,
		func(n *nodeSample, _ time.Time) (float64, bool) { return float64(n.restarts), true }),
	family("herd_node_heartbeats_total", "Heartbeats herd received from the node since herd started.", prometheus.CounterValue,
		func(n *nodeSample, _ time.Time) (float64, bool) { return float64(n.heartbeats), true }),
	family("herd_node_heartbeat_age_seconds", "Seconds since the node's last heartbeat, by herd's clock at the scrape; absent until its first.", prometheus.GaugeValue,
		func(n *nodeSample, now time.Time) (float64, bool) {
			if n.lastHeartbeat.IsZero() {
				return 0, false
			}
			return max(0, now.Sub(n.lastHeartbeat).Seconds()), true
		}),
}

func family(name, help string, typ prometheus.ValueType, value func(*nodeSample, time.Time) (float64, bool)) nodeFamily {
	return nodeFamily{desc: prometheus.NewDesc(name, help, nodeLabels, nil), typ: typ, value: value}
}

// allNodeDescs lists every per-node series' description.
func allNodeDescs() []*prometheus.Desc {
	out := []*prometheus.Desc{conditionDesc, agentStateDesc}
	for _, f := range nodeFamilies {
		out = append(out, f.desc)
	}
	return out
}

// collectNodes sends the series of nodes, family by family and, within a
// family, in the order the registry sorts them in (by label values in
// the order of the label names: condition, kind, node, status): nodes
// must be sorted by kind, then name. The registry's sort of a sorted
// family is then linear, where a shuffled one was a fifth of a scrape of
// 10,000 nodes.
func collectNodes(ch chan<- prometheus.Metric, nodes []namedSample, now time.Time) {
	// Each node's node and kind label pairs, made once and shared by all
	// its series; a condition's and a status's likewise.
	pairs := make([][]*dto.LabelPair, len(nodes))
	kinds := make(map[string]*dto.LabelPair)
	for i := range nodes {
		pairs[i] = []*dto.LabelPair{sharedPair(kinds, "kind", nodes[i].kind), labelPair("node", nodes[i].name)}
	}
	statuses := make(map[domain.ConditionStatus]*dto.LabelPair)
	for _, t := range conditionTypes(nodes) {
		condition := labelPair("condition", string(t))
		for i := range nodes {
			for _, c := range nodes[i].conditions {
				if c.Type != t {
					continue
				}
				status := sharedPair(statuses, "status", c.Status)
				ch <- &nodeMetric{desc: conditionDesc, value: 1, labels: []*dto.LabelPair{condition, pairs[i][0], pairs[i][1], status}}
				break
			}
		}
	}
	states := make(map[domain.AgentState]*dto.LabelPair)
	for i := range nodes {
		if st := nodes[i].agentState; st != "" {
			state := sharedPair(states, "state", st)
			ch <- &nodeMetric{desc: agentStateDesc, value: 1, labels: []*dto.LabelPair{pairs[i][0], pairs[i][1], state}}
		}
	}
	for _, f := range nodeFamilies {
		for i := range nodes {
			if v, ok := f.value(&nodes[i].nodeSample, now); ok {
				ch <- &nodeMetric{desc: f.desc, counter: f.typ == prometheus.CounterValue, value: v, labels: pairs[i]}
			}
		}
	}
}

// nodeMetric is one sample of a per-node series: what
// prometheus.MustNewConstMetric makes, but with label pairs that a
// node's series share (the registry treats them as immutable) rather
// than made anew, and checked, for each of 150,000 series.
type nodeMetric struct {
	desc *prometheus.Desc
	// labels are sorted by name, as the registry expects them.
	labels  []*dto.LabelPair
	counter bool
	value   float64
}

// Desc implements prometheus.Metric.
func (m *nodeMetric) Desc() *prometheus.Desc { return m.desc }

// Write implements prometheus.Metric.
func (m *nodeMetric) Write(out *dto.Metric) error {
	out.Label = m.labels
	if m.counter {
		out.Counter = &dto.Counter{Value: &m.value}
	} else {
		out.Gauge = &dto.Gauge{Value: &m.value}
	}
	return nil
}

func labelPair(name, value string) *dto.LabelPair {
	return &dto.LabelPair{Name: &name, Value: &value}
}

// sharedPair is the label pair name=value from made, made once and kept
// there for the series that share it.
func sharedPair[V ~string](made map[V]*dto.LabelPair, name string, value V) *dto.LabelPair {
	p := made[value]
	if p == nil {
		p = labelPair(name, string(value))
		made[value] = p
	}
	return p
}

// conditionTypes are the condition types any of nodes has, sorted.
func conditionTypes(nodes []namedSample) []domain.ConditionType {
	var types []domain.ConditionType
	for i := range nodes {
		for _, c := range nodes[i].conditions {
			if !slices.Contains(types, c.Type) {
				types = append(types, c.Type)
			}
		}
	}
	slices.Sort(types)
	return types
}

// cpuRatio, memoryRatio, diskRatio and pidRatio are the node's shares in
// use as its latest heartbeats reported them (node_usage.go).
func (n nodeSample) cpuRatio() (float64, bool) { return CPUUsage(n.metrics, n.kubelet, n.cpuMillis) }

func (n nodeSample) memoryRatio() (float64, bool) { return MemoryUsage(n.metrics, n.kubelet) }

func (n nodeSample) diskRatio() (float64, bool) { return DiskUsage(n.metrics, n.kubelet) }

func (n nodeSample) pidRatio() (float64, bool) { return PIDUsage(n.metrics, n.kubelet) }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
