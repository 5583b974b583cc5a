package conversions

import (
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"herd/domain"
)

// The windows the figures of a heartbeat cover, which NodeMetrics states
// (the usage was measured over [timestamp-window, timestamp]). herd keeps
// only the newest heartbeat of a node, so it cannot measure the interval
// itself.
const (
	// agentMetricsWindow is herd agent's default --heartbeat-interval:
	// an agent's CPU use is its share of CPU time since its previous
	// heartbeat.
	agentMetricsWindow = 10 * time.Second
	// kubeletMetricsWindow is cAdvisor's default housekeeping interval,
	// over which the kubelet's summary averages usageNanoCores (and
	// herd's default --kubelet-stats-interval, at which it is read).
	kubeletMetricsWindow = 10 * time.Second
)

// NodeMetricsFromNode is n's NodeMetrics from the figures of its newest
// heartbeat, as metrics-server would serve them, and false when herd has
// no CPU and memory figures for n: a Pico, an agent before its first
// measured CPU share, a kubelet whose summary left either out.
//
// A kubelet's figures are taken as its summary gives them, as
// metrics-server does: CPU in nanocores, memory as the working set. An
// agent's CPU is its CPU share times its CPUs, and its memory what is
// not available of the total. now is the object's creationTimestamp:
// metrics are made when they are asked for.
func NodeMetricsFromNode(n domain.Node, now time.Time) (metricsv1beta1.NodeMetrics, bool) {
	var (
		usage  corev1.ResourceList
		window time.Duration
	)
	if k := n.KubeletMetrics; k != nil && k.CPUUsageNanoCores != nil && k.MemoryWorkingSetBytes != nil {
		usage = corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewScaledQuantity(clampInt64(*k.CPUUsageNanoCores), resource.Nano),
			corev1.ResourceMemory: *resource.NewQuantity(clampInt64(*k.MemoryWorkingSetBytes), resource.BinarySI),
		}
		window = kubeletMetricsWindow
	} else if m := n.Metrics; m != nil && m.CPUPercent != nil && m.MemoryTotalBytes > 0 {
		nano := math.Round(*m.CPUPercent / 100 * float64(m.CPUCount) * 1e9)
		usage = corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewScaledQuantity(int64(nano), resource.Nano),
			corev1.ResourceMemory: *resource.NewQuantity(max(m.MemoryTotalBytes-m.MemoryAvailableBytes, 0), resource.BinarySI),
		}
		window = agentMetricsWindow
	} else {
		return metricsv1beta1.NodeMetrics{}, false
	}
	return metricsv1beta1.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, CreationTimestamp: metav1.NewTime(now)},
		Timestamp:  metav1.NewTime(n.LastHeartbeat),
		Window:     metav1.Duration{Duration: window},
		Usage:      usage,
	}, true
}

// clampInt64 is v as an int64, the largest one when v is larger: a
// Quantity holds no more.
func clampInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
