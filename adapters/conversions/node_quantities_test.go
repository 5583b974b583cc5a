package conversions

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"herd/domain"
)

// TestANodesQuantitiesAreWrittenOnce: the quantities of a Node herd
// answers with carry their text, so that encoding the Node, which
// protobuf does by measuring each quantity and then writing it, does not
// work each one out again; what they say is unchanged.
func TestANodesQuantitiesAreWrittenOnce(t *testing.T) {
	n := domain.Node{
		Name: "worker-0001", Kind: domain.KindKubelet,
		Capacity:    domain.ResourceList{"cpu": 4000, "memory": 8 << 30, "pods": 110, "ephemeral-storage": 100 << 30},
		Allocatable: domain.ResourceList{"cpu": 3900, "memory": 7 << 30, "pods": 110, "ephemeral-storage": 90 << 30},
	}
	api := NodeToAPI(n)
	lists := map[string]corev1.ResourceList{"capacity": api.Status.Capacity, "allocatable": api.Status.Allocatable}
	allocs := testing.AllocsPerRun(100, func() {
		for _, l := range lists {
			for _, q := range l {
				_ = q.Size()
			}
		}
	})
	if allocs > 0 {
		t.Errorf("measuring a node's eight quantities: %.0f allocations, want none", allocs)
	}
	want := map[string]map[string]string{
		"capacity":    {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"},
		"allocatable": {"cpu": "3900m", "memory": "7Gi", "pods": "110", "ephemeral-storage": "90Gi"},
	}
	for which, l := range lists {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for name, w := range want[which] {
			if got[name] != w {
				t.Errorf("%s[%s] = %q, want %q", which, name, got[name], w)
			}
		}
	}
}
