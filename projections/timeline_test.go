package projections

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
)

// TestTimelineEntries: every lifecycle event reads as a sentence, and is a
// Warning where Kubernetes would make it one (NodeNotReady, a pressure
// True, a silent or rebooted node, an eviction, a failed scrape).
func TestTimelineEntries(t *testing.T) {
	at := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	grace := int64(5)
	for _, tc := range []struct {
		name        string
		ev          domain.Event
		typ, reason string
		msg         string
	}{
		{"registered", domain.NodeRegistered{Registration: domain.Registration{Kind: domain.KindIllumos}, At: at},
			"Normal", "illumos", "registered as a node of kind illumos"},
		{"restarted", domain.NodeRestarted{RestartCount: 2, Reason: "BootIDChanged", At: at},
			"Warning", "BootIDChanged", "node restarted (restart #2: BootIDChanged)"},
		{"ready", domain.NodeBecameReady{At: at}, "Normal", "Ready", "node is Ready"},
		{"not ready", domain.NodeBecameNotReady{Status: domain.ConditionUnknown, Reason: "NodeStatusUnknown", At: at},
			"Warning", "NodeStatusUnknown", "node is not Ready: Ready is Unknown"},
		{"pressure True", domain.NodeConditionChanged{Type: "MemoryPressure", From: "False", Status: "True", Reason: "HasInsufficientMemory", At: at},
			"Warning", "HasInsufficientMemory", "MemoryPressure changed from False to True"},
		{"pressure False again", domain.NodeConditionChanged{Type: "MemoryPressure", From: "True", Status: "False", Reason: "HasSufficientMemory", At: at},
			"Normal", "HasSufficientMemory", "MemoryPressure changed from True to False"},
		{"pressure first known", domain.NodeConditionChanged{Type: "DiskPressure", Status: "False", Reason: "HasNoDiskPressure", Message: "disk fine", At: at},
			"Normal", "HasNoDiskPressure", "DiskPressure is False: disk fine"},
		{"pressure gone Unknown", domain.NodeConditionChanged{Type: "PIDPressure", From: "False", Status: "Unknown", Reason: "NodeStatusUnknown", At: at},
			"Warning", "NodeStatusUnknown", "PIDPressure changed from False to Unknown"},
		{"Ready False", domain.NodeConditionChanged{Type: "Ready", From: "True", Status: "False", Reason: "KubeletNotReady", At: at},
			"Warning", "KubeletNotReady", "Ready changed from True to False"},
		{"kubelet reachable", domain.NodeConditionChanged{Type: "KubeletReachable", Status: "True", Reason: "KubeletHealthy", At: at},
			"Normal", "KubeletHealthy", "KubeletReachable is True"},
		{"kubelet unreachable", domain.NodeConditionChanged{Type: "KubeletReachable", From: "True", Status: "False", Reason: "KubeletUnreachable", At: at},
			"Warning", "KubeletUnreachable", "KubeletReachable changed from True to False"},
		{"unreachable", domain.HeartbeatMissed{LastHeartbeat: at.Add(-time.Minute), Reason: "NodeStatusUnknown", At: at},
			"Warning", "NodeStatusUnknown", "no heartbeat since 2026-01-02T08:59:00Z"},
		{"never heard from", domain.HeartbeatMissed{Reason: "NodeStatusNeverUpdated", At: at},
			"Warning", "NodeStatusNeverUpdated", "no heartbeat ever received"},
		{"service failed", domain.NodeServiceFailed{Service: "nginx.service", State: "failed/failed", At: at},
			"Warning", "ServiceFailed", "service nginx.service stopped running: failed/failed"},
		{"service missing", domain.NodeServiceFailed{Service: "nosuch.service", State: domain.ServiceNotFound, At: at},
			"Warning", "ServiceFailed", "service nosuch.service does not exist"},
		{"service recovered", domain.NodeServiceRecovered{Service: "nginx.service", State: "active/running", At: at},
			"Normal", "ServiceRecovered", "service nginx.service runs again: active/running"},
		{"services failed", domain.NodeConditionChanged{Type: "ServicesHealthy", From: "True", Status: "False", Reason: "ServicesFailed", At: at},
			"Warning", "ServicesFailed", "ServicesHealthy changed from True to False"},
		{"services running", domain.NodeConditionChanged{Type: "ServicesHealthy", Status: "True", Reason: "ServicesRunning", At: at},
			"Normal", "ServicesRunning", "ServicesHealthy is True"},
		{"scrape failed", domain.NodeScrapeFailed{Reason: "ConnectionRefused", Message: "connection refused", At: at},
			"Warning", "ConnectionRefused", "herd cannot poll the kubelet: connection refused"},
		{"unreachable taint", domain.NodeTainted{Taint: domain.Taint{Key: "node.kubernetes.io/unreachable", Effect: "NoExecute"}, Cause: "node unreachable", At: at},
			"Warning", "node unreachable", "taint node.kubernetes.io/unreachable:NoExecute added"},
		{"operator taint", domain.NodeTainted{Taint: domain.Taint{Key: "maintenance", Value: "true", Effect: "NoSchedule"}, Cause: domain.CauseOperator, At: at},
			"Normal", domain.CauseOperator, "taint maintenance=true:NoSchedule added"},
		{"drain evicts", domain.NodeDrainStarted{GracePeriodSeconds: &grace, At: at},
			"Warning", "", "draining: evicting every pod with a grace period of 5 s"},
		{"drained", domain.NodeDrained{At: at}, "Normal", "", "every pod is gone; the node stays cordoned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := timelineEntries("n1", events.Record{Position: 7}, tc.ev)
			if len(got) != 1 {
				t.Fatalf("%d entries, want 1", len(got))
			}
			e := got[0]
			if diff := cmp.Diff([]string{tc.typ, tc.reason, tc.msg}, []string{e.Type, e.Reason, e.Message}); diff != "" {
				t.Errorf("type, reason, message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAReportsChangesAreAnEntryEach: a report's changes recorded as one
// NodeStatusChanged show as the entries they stood for one by one, each
// condition's change and Ready's turn, in order, under the event's
// position.
func TestAReportsChangesAreAnEntryEach(t *testing.T) {
	at := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	ev := domain.NodeStatusChanged{Conditions: []domain.ConditionChange{
		{Type: domain.ConditionReady, Status: domain.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
		{Type: domain.ConditionMemoryPressure, Status: domain.ConditionFalse, Reason: "KubeletHasSufficientMemory"},
	}, BecameReady: true, At: at}
	var got []string
	for _, e := range timelineEntries("n1", events.Record{Position: 7}, ev) {
		got = append(got, fmt.Sprintf("%d %s %s: %s", e.Position, e.Kind, e.Reason, e.Message))
	}
	want := []string{
		"7 ConditionChanged KubeletReady: Ready is True: kubelet is posting ready status",
		"7 ConditionChanged KubeletHasSufficientMemory: MemoryPressure is False",
		"7 BecameReady Ready: node is Ready",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}
