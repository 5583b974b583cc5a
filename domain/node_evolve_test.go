package domain

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sampleEvents is one event of every node event type, with every map,
// slice and pointer filled in.
func sampleEvents() []Event {
	reg := registration("web-01")
	m := healthy()
	m.CPUPercent = ptr(42.5)
	m.Links = []NetworkLink{{Name: "eth0", State: "up", Up: true}}
	m.Services = []ServiceState{{Name: "nginx.service", Status: ServiceFailed, State: "failed/failed"}}
	return []Event{
		NodeRegistered{Registration: reg, At: at(1)},
		NodeRestarted{Registration: reg, RestartCount: 3, Reason: RestartCleanStart, At: at(2)},
		HeartbeatRecorded{At: at(3), Metrics: m, Kubelet: kubeletMetrics()},
		NodeConditionChanged{Type: ConditionMemoryPressure, From: ConditionFalse, Status: ConditionTrue, Reason: "HasInsufficientMemory", Message: "memory used above the 90% threshold", At: at(4)},
		NodeBecameReady{At: at(5)},
		NodeStatusChanged{Conditions: []ConditionChange{{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, Reason: "KubeletNotReady", Message: "container runtime is down"},
			{Type: ConditionDiskPressure, Status: ConditionFalse, Reason: "KubeletHasNoDiskPressure"},
			{Type: ConditionMemoryPressure, From: ConditionFalse, Status: ConditionUnknown, Reason: ReasonAgentStopped, Inferred: true}}, NotReady: ConditionFalse, NotReadyReason: "KubeletNotReady", At: at(5)},
		NodeDeregistered{At: at(6)},
		NodeLabelsChanged{Labels: map[string]string{"zone": "c"}, Annotations: map[string]string{"note": "moved"}, At: at(7)},
		NodeDeleted{At: at(8)},
		HeartbeatMissed{LastHeartbeat: at(3), Reason: ReasonNodeStatusUnknown, Message: MessageNodeStatusUnknown, At: at(9),
			Conditions: []MissedCondition{{Type: ConditionReady, From: ConditionTrue}}, NotReady: true,
			Taints: []Taint{{Key: TaintUnreachable, Effect: EffectNoSchedule, TimeAdded: at(9)}}},
		NodeBecameNotReady{Status: ConditionUnknown, Reason: ReasonNodeStatusUnknown, At: at(9)},
		NodeTainted{Taint: Taint{Key: TaintUnreachable, Effect: EffectNoExecute, TimeAdded: at(9)}, Cause: "Ready is Unknown", At: at(9)},
		NodeUntainted{Key: TaintUnreachable, Effect: EffectNoExecute, Cause: "condition cleared", At: at(10)},
		FleetDisruptionStarted{Unreachable: 3, Total: 4, At: at(11)},
		FleetDisruptionEnded{Unreachable: 0, Total: 4, At: at(12)},
		HealthMonitorStarted{At: at(13), Nodes: 4},
		NodeCordoned{At: at(13)},
		NodeUncordoned{At: at(14)},
		NodeDrainStarted{GracePeriodSeconds: ptr(int64(5)), At: at(15)},
		NodeDrained{At: at(16)},
		NodeUndrained{At: at(17)},
		cmCreated("default", "pico-config", "uid-cm", sampleContent(), at(13)),
		cmUpdated(sampleContent(), []string{"data.interval"}, at(14)),
		ConfigMapMetadataChanged{Labels: map[string]string{"team": "a"}, Changed: []string{"metadata.labels.team"}, At: at(14)},
		ConfigMapDeleted{At: at(15)},
		DeviceBound{Name: "pico-01", Address: "192.168.4.17", At: at(16)},
		DeviceReleased{Address: "192.168.4.17", At: at(17)},
		NodeScrapeFailed{Reason: "ConnectionRefused", Message: "dial tcp 10.0.0.7:10250: connection refused", At: at(13)},
		NodeScrapeRecovered{Reason: "ConnectionRefused", At: at(14)},
		NodeMachineObserved{Capacity: ResourceList{"cpu": 2000}, Allocatable: ResourceList{"cpu": 2000}, MachineID: "f3fa05a9", SystemUUID: "ec2856b5", BootID: "bdab808d", At: at(15)},
		NodeServiceFailed{Service: "nginx.service", State: "failed/failed", At: at(15)},
		NodeServiceRecovered{Service: "nginx.service", State: "active/running", At: at(16)},
		NodePressureEased{Type: ConditionMemoryPressure, At: at(16)},
		NodePressureReturned{Type: ConditionMemoryPressure, At: at(17)},
		NodeKubeletEndpointChanged{KubeletPort: 41234, FromPort: 10250, Addresses: []Address{{Type: "InternalIP", Address: "127.0.0.1"}}, At: at(16)},
		KubeletTargetSet{Target: kubeletTarget("web-01"), At: at(15)},
		KubeletTargetRemoved{Name: "web-01", Source: SourceAPI, At: at(16)},
		NamespaceCreated{Name: "shop", UID: "uid-ns", Labels: map[string]string{"team": "shop"}, Reason: "in use", At: at(17)},
		NamespaceUpdated{Labels: map[string]string{"team": "web"}, Annotations: map[string]string{"owner": "ann"}, At: at(18)},
		NamespaceTerminating{At: at(18)},
		NamespaceDeleted{At: at(19)},
		LeaseCreated{Namespace: NodeLeaseNamespace, Name: "web-01", UID: "uid-l", Spec: LeaseSpec{HolderIdentity: "web-01", LeaseDurationSeconds: ptr(int32(40)), RenewTime: ptr(at(20))},
			Owners: []OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "web-01", UID: "uid-n"}}, At: at(20)},
		LeaseUpdated{Spec: LeaseSpec{HolderIdentity: "web-02", RenewTime: ptr(at(21))}, At: at(21)},
		LeaseRenewed{RenewTime: at(22), At: at(22)},
		LeaseDeleted{At: at(23)},
	}
}

// otherEvent is an event type EvolveNode does not know.
type otherEvent struct{}

func (otherEvent) EventType() string { return "SomethingNew" }

func TestEvolveNodeNeverMutatesItsInput(t *testing.T) {
	for _, e := range append(sampleEvents(), otherEvent{}) {
		t.Run(e.EventType(), func(t *testing.T) {
			n := ready(t, "web-01")
			n.ResourceVersion = 7
			before := n.Clone()

			got := EvolveNode(n, e)
			if diff := cmp.Diff(before, n); diff != "" {
				t.Fatalf("input node changed (-before +after):\n%s", diff)
			}
			if got.Version != n.Version+1 || got.ResourceVersion != 7 {
				t.Errorf("version %d, resourceVersion %d; want %d, 7", got.Version, got.ResourceVersion, n.Version+1)
			}

			// The result must share nothing with the event: scribbling on
			// it leaves an event that is still to be stored untouched.
			eventBefore := cloneEvent(t, e)
			scribble(&got)
			if diff := cmp.Diff(eventBefore, e); diff != "" {
				t.Errorf("changing the result changed the event (-before +after):\n%s", diff)
			}
		})
	}
}

func TestEvolveNodeIgnoresUnknownEventsButCountsThem(t *testing.T) {
	n := ready(t, "web-01")
	got := EvolveNode(n, otherEvent{})
	n.Version++
	if diff := cmp.Diff(n, got); diff != "" {
		t.Errorf("node (-want +got):\n%s", diff)
	}
}

func TestDecideNode(t *testing.T) {
	if _, err := DecideNode(registered("web-01"), nil, t0); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil command: error %v, want ErrInvalid", err)
	}
	if _, err := DecideNode(Node{}, DeleteNode{}, t0); err == nil || err.Error() != "node: not found" {
		t.Errorf("unnamed unknown node: error %v, want %q", err, "node: not found")
	}
	if _, err := DecideNode(Node{Name: "ghost"}, DeleteNode{}, t0); err == nil || err.Error() != `node "ghost": not found` {
		t.Errorf("unknown node: error %v, want it named", err)
	}
	// A wall-clock reading in another zone, with a monotonic part, is
	// recorded as the same instant in UTC and nothing more.
	local := time.Now().In(time.FixedZone("CET", 3600))
	events, err := DecideNode(registered("web-01"), DeleteNode{}, local)
	if err != nil {
		t.Fatal(err)
	}
	if got := events[0].(NodeDeleted).At; got != local.UTC() || got.Location() != time.UTC {
		t.Errorf("At = %v (%v), want %v in UTC", got, got.Location(), local)
	}
}

// scribble changes every map, slice and pointer of n in place.
func scribble(n *Node) {
	for _, m := range []map[string]string{n.Labels, n.Annotations} {
		for k := range m {
			m[k] = "scribbled"
		}
	}
	for _, r := range []ResourceList{n.Capacity, n.Allocatable} {
		for k := range r {
			r[k] = -1
		}
	}
	for i := range n.Addresses {
		n.Addresses[i].Address = "scribbled"
	}
	for i := range n.Conditions {
		n.Conditions[i].Message = "scribbled"
	}
	if m := n.Metrics; m != nil {
		m.CPUCount = -1
		if m.CPUPercent != nil {
			*m.CPUPercent = -1
		}
		for i := range m.Links {
			m.Links[i].Name = "scribbled"
		}
		for i := range m.Services {
			m.Services[i].State = "scribbled"
		}
	}
	for k := range n.FailedServices {
		n.FailedServices[k] = "scribbled"
	}
	if k := n.KubeletMetrics; k != nil {
		*k.MemoryAvailableBytes, *k.RlimitMaxPID = 1, -1
	}
	if n.ScrapeFailure != nil {
		n.ScrapeFailure.Reason = "scribbled"
	}
}

// cloneEvent deep-copies an event through the log's own encoding.
func cloneEvent(t *testing.T, e Event) Event {
	t.Helper()
	if _, ok := e.(otherEvent); ok {
		return e
	}
	return roundTrip(t, e)
}
