package conversions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"herd/domain"
)

func TestNodeMetricsFromTheNewestHeartbeat(t *testing.T) {
	beat := t0.Add(-3 * time.Second)
	now := t0
	pct := func(v float64) *float64 { return &v }
	u64 := func(v uint64) *uint64 { return &v }
	agent := func(m *domain.Metrics) domain.Node {
		return domain.Node{Name: "web-01", Kind: domain.KindLinux, Labels: map[string]string{"rack": "1"}, LastHeartbeat: beat, Metrics: m}
	}
	kubelet := func(k *domain.KubeletMetrics) domain.Node {
		return domain.Node{Name: "kube-01", Kind: domain.KindKubelet, LastHeartbeat: beat, KubeletMetrics: k}
	}
	want := func(name string, labels map[string]string, cpu, memory string) *metricsv1beta1.NodeMetrics {
		return &metricsv1beta1.NodeMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(now)},
			Timestamp:  metav1.NewTime(beat),
			Window:     metav1.Duration{Duration: 10 * time.Second},
			Usage:      corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
		}
	}
	tests := []struct {
		name string
		node domain.Node
		// want is nil when herd has no figures for the node.
		want *metricsv1beta1.NodeMetrics
	}{
		{"an agent's CPU share of its CPUs, and the memory not available",
			agent(&domain.Metrics{CPUCount: 4, CPUPercent: pct(25), MemoryTotalBytes: 8 << 30, MemoryAvailableBytes: 5 << 30}),
			want("web-01", map[string]string{"rack": "1"}, "1", "3Gi")},
		{"an agent's fractions of a core in nanocores",
			agent(&domain.Metrics{CPUCount: 2, CPUPercent: pct(12.5), MemoryTotalBytes: 1000, MemoryAvailableBytes: 1000}),
			want("web-01", map[string]string{"rack": "1"}, "250m", "0")},
		{"an idle agent uses no CPU",
			agent(&domain.Metrics{CPUCount: 8, CPUPercent: pct(0), MemoryTotalBytes: 4 << 30, MemoryAvailableBytes: 3 << 30}),
			want("web-01", map[string]string{"rack": "1"}, "0", "1Gi")},
		{"an agent that has not measured CPU use yet has no figures",
			agent(&domain.Metrics{CPUCount: 4, MemoryTotalBytes: 8 << 30, MemoryAvailableBytes: 5 << 30}), nil},
		{"an agent that reports no memory has no figures",
			agent(&domain.Metrics{CPUCount: 4, CPUPercent: pct(10)}), nil},
		{"a node that never sent metrics has no figures", agent(nil), nil},
		{"a kubelet's figures as its summary gives them",
			kubelet(&domain.KubeletMetrics{CPUUsageNanoCores: u64(123456789), MemoryWorkingSetBytes: u64(512 << 20), MemoryAvailableBytes: u64(1 << 30)}),
			want("kube-01", nil, "123456789n", "512Mi")},
		{"a kubelet that gave no CPU use has no figures",
			kubelet(&domain.KubeletMetrics{MemoryWorkingSetBytes: u64(512 << 20)}), nil},
		{"a kubelet that gave no working set has no figures",
			kubelet(&domain.KubeletMetrics{CPUUsageNanoCores: u64(1)}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NodeMetricsFromNode(tt.node, now)
			if tt.want == nil {
				if ok {
					t.Fatalf("figures %+v for a node without any", got)
				}
				return
			}
			if !ok {
				t.Fatal("no figures")
			}
			if diff := cmp.Diff(*tt.want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
				t.Errorf("NodeMetrics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAgentCPUInMillicoresAsKubectlTopPrintsIt(t *testing.T) {
	pct := 37.5
	n := domain.Node{Name: "web-01", LastHeartbeat: t0, Metrics: &domain.Metrics{CPUCount: 4, CPUPercent: &pct, MemoryTotalBytes: 2, MemoryAvailableBytes: 1}}
	m, ok := NodeMetricsFromNode(n, t0)
	if !ok {
		t.Fatal("no figures")
	}
	if got := m.Usage.Cpu().MilliValue(); got != 1500 {
		t.Errorf("37.5%% of 4 CPUs is %dm, want 1500m", got)
	}
}
