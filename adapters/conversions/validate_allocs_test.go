package conversions

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestAKubeletsStatusIsCheckedWithoutBuildingPaths: the status a kubelet
// registers with (four resources twice, four conditions, two addresses),
// nothing wrong with it, is checked without building the field paths
// that only an error carries; the set of addresses seen is all it builds.
func TestAKubeletsStatusIsCheckedWithoutBuildingPaths(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceList {
		return corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
			corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		}
	}
	s := corev1.NodeStatus{
		Capacity:    rl("4", "8Gi"),
		Allocatable: rl("3900m", "7Gi"),
		Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory"},
			{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure"},
			{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID"},
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"},
		},
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeHostName, Address: "worker-0001"}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
	}
	allocs := testing.AllocsPerRun(100, func() {
		if errs := validateNodeStatus(&s, statusPath); len(errs) > 0 {
			t.Fatal(errs)
		}
	})
	if allocs > 1 {
		t.Errorf("checking a kubelet's Node status: %.0f allocations, want at most 1", allocs)
	}
}
