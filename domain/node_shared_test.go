package domain

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// cloned is s in memory of its own, as a request's decoder hands it over.
func cloned(s string) string { return strings.Clone(s) }

// requestRegistration is registration(name) with every string in memory of
// its own, as it comes from a request rather than from the log.
func requestRegistration(name string) Registration {
	r := registration(name)
	r.Labels = map[string]string{cloned("kubernetes.io/os"): cloned("linux"), cloned("zone"): cloned("a")}
	r.Annotations = map[string]string{cloned("node.alpha.kubernetes.io/ttl"): cloned("0")}
	r.Capacity = ResourceList{cloned("cpu"): 8000}
	r.Allocatable = ResourceList{cloned("cpu"): 7500}
	r.Addresses = []Address{{Type: cloned("InternalIP"), Address: cloned("10.0.0.7")}}
	r.Info = NodeInfo{AgentVersion: cloned("v1.31.2"), OSImage: cloned("Ubuntu 24.04.1 LTS"), OperatingSystem: cloned("linux"),
		Architecture: cloned("amd64"), KernelVersion: cloned("6.8.0"), ContainerRuntimeVersion: cloned("containerd://1.7.22")}
	return r
}

// TestNodesFoldedFromRequestsShareTheirRepeatedStrings: two nodes
// registered and reported by requests, whose events were never decoded
// from the log, hold one copy of the strings a fleet repeats, as nodes
// folded from decoded events do: the unit of work's nodes and the watch
// hub's then share them.
func TestNodesFoldedFromRequestsShareTheirRepeatedStrings(t *testing.T) {
	// unique keeps a canonical string only while a handle to it lives,
	// and a node holds the string, not the handle: a collection between
	// the two folds would let the second make copies of its own. With the
	// collector off, what the test checks is that the fold interns, not
	// when the collector ran.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	report := func() RecordHeartbeat {
		return RecordHeartbeat{Reported: []ReportedCondition{{Type: ConditionType(cloned("Ready")), Status: ConditionStatus(cloned("True")),
			Reason: cloned("KubeletReady"), Message: cloned("kubelet is posting ready status")}}}
	}
	nodes := make([]Node, 2)
	for i := range nodes {
		n, _ := run(t, Node{}, step{RegisterNode{Registration: requestRegistration("web-0" + string(rune('1'+i)))}, t0}, step{report(), at(10)})
		n = fold(n, NodeLabelsChanged{Labels: map[string]string{cloned("kubernetes.io/os"): cloned("linux"), cloned("tier"): cloned("web")},
			Annotations: map[string]string{cloned("owner"): cloned("ops")}, At: at(20)})
		nodes[i] = n
	}
	a, b := nodes[0], nodes[1]
	shared := func(what, x, y string) {
		t.Helper()
		if x == "" || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s %q is held twice", what, x)
		}
	}
	for k := range a.Labels {
		shared("a label's key", k, keyOf(b.Labels, k))
		shared("a label's value", a.Labels[k], b.Labels[k])
	}
	shared("an annotation's key", keyOf(a.Annotations, "owner"), keyOf(b.Annotations, "owner"))
	shared("an address's type", a.Addresses[0].Type, b.Addresses[0].Type)
	shared("the kubelet's version", a.Info.AgentVersion, b.Info.AgentVersion)
	shared("the OS image", a.Info.OSImage, b.Info.OSImage)
	shared("the kernel", a.Info.KernelVersion, b.Info.KernelVersion)
	ra, _ := a.Condition(ConditionReady)
	rb, _ := b.Condition(ConditionReady)
	shared("a condition's reason", ra.Reason, rb.Reason)
	shared("a condition's message", ra.Message, rb.Message)
	shared("a condition's status", string(ra.Status), string(rb.Status))
	if len(a.Conditions) != cap(a.Conditions) {
		t.Errorf("the node keeps %d conditions in a slice of %d", len(a.Conditions), cap(a.Conditions))
	}
}

// keyOf is m's own copy of the key k.
func keyOf[V any](m map[string]V, k string) string {
	for key := range m {
		if key == k {
			return key
		}
	}
	return ""
}

// TestAConditionChangedInPlaceKeepsNoRoomToSpare: the node's versions keep
// its conditions for as long as they live, so a changed condition costs a
// slice just long enough.
func TestAConditionChangedInPlaceKeepsNoRoomToSpare(t *testing.T) {
	n, _ := run(t, registered("web-01"), step{kubeletReport(), at(10)})
	n = fold(n, NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, Reason: "KubeletNotReady", At: at(20)})
	if len(n.Conditions) != cap(n.Conditions) {
		t.Errorf("after a change in place the node keeps %d conditions in a slice of %d", len(n.Conditions), cap(n.Conditions))
	}
}

// Maps and slices are shared between a node's versions, so no event may
// write into those of the node it is folded onto, nor hand the node its
// own: TestEvolveNodeNeverMutatesItsInput on a node that has every map and
// slice a node can have (taints, failed services, eased pressures, a
// drain), under the events that replace or extend them.
func TestEvolveNodeNeverWritesTheMapsAndSlicesItWasGiven(t *testing.T) {
	// base is a node with every map and slice a node has.
	base := func() Node {
		n, _ := run(t, registered("web-01"), step{kubeletReport(), at(10)})
		return fold(n,
			NodeTainted{Taint: Taint{Key: "k", Effect: "NoSchedule"}, At: at(11)},
			NodeServiceFailed{Service: "sshd", State: "failed", At: at(12)},
			NodePressureEased{Type: ConditionMemoryPressure, At: at(13)},
			NodeDrainStarted{At: at(14)},
		)
	}
	evs := []func() Event{
		func() Event { return NodeRegistered{Registration: registration("web-01"), At: at(20)} },
		func() Event {
			return NodeRestarted{Registration: registration("web-01"), At: at(20), RestartCount: 1, Reason: "rebooted"}
		},
		func() Event {
			return NodeLabelsChanged{Labels: map[string]string{"a": "b", LabelKind: "illumos"}, Annotations: map[string]string{"c": "d"}, At: at(20)}
		},
		func() Event {
			return NodeMachineObserved{Capacity: ResourceList{"cpu": 1}, Allocatable: ResourceList{"memory": 2}, MachineID: "m", At: at(20)}
		},
		func() Event {
			return NodeKubeletEndpointChanged{KubeletPort: 10251, Addresses: []Address{{Type: "InternalIP", Address: "10.0.0.9"}}, At: at(20)}
		},
		func() Event {
			return NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, Reason: "KubeletNotReady", At: at(20)}
		},
		func() Event {
			return NodeConditionChanged{Type: ConditionNetworkUnavailable, Status: ConditionFalse, Reason: "RouteCreated", At: at(20)}
		},
		func() Event {
			return HeartbeatMissed{LastHeartbeat: at(10), Reason: "NodeStatusUnknown", At: at(60),
				Conditions: []MissedCondition{{Type: ConditionReady, From: ConditionTrue}}, NotReady: true}
		},
		func() Event { return NodeTainted{Taint: Taint{Key: "k2", Effect: "NoExecute"}, At: at(20)} },
		func() Event { return NodeUntainted{Key: "k", Effect: "NoSchedule", At: at(20)} },
		func() Event { return NodeServiceFailed{Service: "cron", State: "failed", At: at(20)} },
		func() Event { return NodeServiceRecovered{Service: "sshd", At: at(20)} },
		func() Event { return NodePressureEased{Type: ConditionDiskPressure, At: at(20)} },
		func() Event { return NodePressureReturned{Type: ConditionMemoryPressure, At: at(20)} },
		func() Event { return NodeDrained{At: at(20)} },
		func() Event { return NodeUndrained{At: at(20)} },
		func() Event { return NodeDeleted{At: at(20)} },
	}
	encode := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, event := range evs {
		n, e := base(), event()
		nodeBefore, eventBefore := encode(n), encode(e)
		next := EvolveNode(n, e)
		if diff := cmp.Diff(nodeBefore, encode(n)); diff != "" {
			t.Errorf("%T wrote into the node it was folded onto (-before +after):\n%s", e, diff)
		}
		// The result may share the node's maps and slices, never the
		// event's.
		scribble(&next)
		if diff := cmp.Diff(eventBefore, encode(e)); diff != "" {
			t.Errorf("%T: the node folded from it shares its maps or slices (-before +after):\n%s", e, diff)
		}
	}
}
