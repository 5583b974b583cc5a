package watch

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"herd/domain"
)

// benchNode is a node as a heartbeat leaves it: an agent's labels,
// addresses, capacity, five conditions, a taint and its figures.
func benchNode() domain.Node {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	cpu := 31.5
	n := domain.Node{
		Name: "web-01", UID: "0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e55", Kind: "linux",
		Labels:      map[string]string{"kubernetes.io/hostname": "web-01", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "herd.dev/kind": "linux", "topology.kubernetes.io/zone": "a"},
		Addresses:   []domain.Address{{Type: "InternalIP", Address: "10.0.0.1"}, {Type: "Hostname", Address: "web-01"}},
		Capacity:    domain.ResourceList{"cpu": 4000, "memory": 8 << 30, "pods": 110},
		Allocatable: domain.ResourceList{"cpu": 3500, "memory": 7 << 30, "pods": 110},
		Info:        domain.NodeInfo{AgentVersion: "herd-agent/dev", KernelVersion: "6.1.0", OSImage: "Debian GNU/Linux 12", ContainerRuntimeVersion: "herd://dev"},
		Taints:      []domain.Taint{{Key: "dedicated", Value: "db", Effect: domain.EffectNoSchedule, TimeAdded: at}},
		StartedAt:   at, RegisteredAt: at, LastHeartbeat: at,
		Metrics: &domain.Metrics{CPUCount: 4, Load1: 0.4, MemoryTotalBytes: 8 << 30, MemoryAvailableBytes: 4 << 30, DiskTotalBytes: 100 << 30,
			DiskAvailableBytes: 60 << 30, PIDsMax: 32768, PIDsCurrent: 400, CPUPercent: &cpu},
		Version: 1000, ResourceVersion: 123456,
	}
	for _, c := range []domain.ConditionType{domain.ConditionReady, "MemoryPressure", "DiskPressure", "PIDPressure", "CPUPressure"} {
		n.Conditions = append(n.Conditions, domain.Condition{Type: c, Status: domain.ConditionFalse, Reason: "KubeletHasSufficient" + string(c),
			Message: "kubelet has sufficient " + string(c), LastHeartbeatTime: at, LastTransitionTime: at})
	}
	return n
}

// BenchmarkHeartbeatEntrySize is what sizing one heartbeat's node
// version for the watch cache costs (entrySize's reflective walk),
// beside what a kept JSON rendering of the same version would cost to
// make (json.Marshal of the node, a lower bound of the API object's).
func BenchmarkHeartbeatEntrySize(b *testing.B) {
	n := benchNode()
	e := entry{cur: &Object{state: n}, gone: &Object{state: n}}
	b.Run("reflect", func(b *testing.B) {
		for b.Loop() {
			_ = entrySize(e)
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(n); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDeepSizeCountsEachMapEntrysStrings: sizing a map reads each key
// and value where it lies, and counts every entry's bytes.
func TestDeepSizeCountsEachMapEntrysStrings(t *testing.T) {
	labels := map[string]string{"a": "xx", "bbb": "yyyy", "cc": ""}
	var pair string
	want := int64(len(labels))*(2*int64(unsafe.Sizeof(pair))+mapEntryOverhead) + (1 + 2) + (3 + 4) + (2 + 0)
	if got := deepSize(reflect.ValueOf(labels)); got != want {
		t.Errorf("deepSize = %d, want %d", got, want)
	}
}
