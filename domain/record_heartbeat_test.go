package domain

import (
	"testing"
	"time"
)

// healthyChanges are the condition events of a node's first healthy
// heartbeat at the given time.
func healthyChanges(now time.Time) []Event {
	return []Event{
		NodeConditionChanged{Type: ConditionReady, Status: ConditionTrue, Reason: "AgentReady", Message: "herd agent is posting ready status", At: now},
		NodeConditionChanged{Type: ConditionMemoryPressure, Status: ConditionFalse, Reason: "HasSufficientMemory", Message: "memory used at or below the 90% threshold", At: now},
		NodeConditionChanged{Type: ConditionDiskPressure, Status: ConditionFalse, Reason: "HasNoDiskPressure", Message: "disk used at or below the 90% threshold", At: now},
		NodeConditionChanged{Type: ConditionPIDPressure, Status: ConditionFalse, Reason: "HasSufficientPID", Message: "PIDs in use at or below the 90% threshold", At: now},
		NodeConditionChanged{Type: ConditionHighLoad, Status: ConditionFalse, Reason: "NormalLoad", Message: "load1 at or below the threshold of 8 (2 per CPU, 4 CPUs)", At: now},
	}
}

func TestDecideRecordHeartbeat(t *testing.T) {
	now := at(60)
	busy := healthy()
	busy.Load1, busy.MemoryAvailableBytes, busy.PIDsCurrent = 3.5, 300, 700
	kubeletReady := []ReportedCondition{
		{Type: ConditionMemoryPressure, Status: ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: "CustomCheck", Status: ConditionUnknown},
		{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
		{Type: ConditionNetworkUnavailable, Status: ConditionFalse, Reason: "RouteCreated"},
	}
	kubeletNode := fold(registered("kube-01"), HeartbeatRecorded{At: at(10)},
		NodeConditionChanged{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", At: at(10)},
		NodeBecameReady{At: at(10)})
	draining := ready(t, "web-01")
	draining.AgentState = AgentDraining
	draining = fold(draining, NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, At: at(20)})
	restarted := fold(ready(t, "web-01"), NodeRestarted{Registration: registration("web-01"), RestartCount: 1, Reason: RestartCrashRecovery, At: at(30)})
	stopped := fold(registered("web-01"), NodeDeregistered{At: at(20)},
		NodeConditionChanged{Type: ConditionReady, Status: ConditionFalse, Reason: ReasonAgentStopped, Message: MessageAgentStopped, At: at(20)})

	tests := []struct {
		name    string
		node    Node
		cmd     RecordHeartbeat
		want    []Event
		wantErr error
	}{
		{
			name: "first heartbeat derives every condition and makes the node ready",
			node: registered("web-01"),
			cmd:  RecordHeartbeat{Metrics: healthy()},
			want: append(append([]Event{HeartbeatRecorded{At: now, Metrics: healthy()}}, healthyChanges(now)...), NodeBecameReady{At: now}),
		},
		{
			name: "a heartbeat that changes nothing but times is one event",
			node: ready(t, "web-01"),
			cmd:  RecordHeartbeat{Metrics: healthy()},
			want: []Event{HeartbeatRecorded{At: now, Metrics: healthy()}},
		},
		{
			name: "metrics that move without crossing a threshold are one event",
			node: ready(t, "web-01"),
			cmd:  RecordHeartbeat{Metrics: busy},
			want: []Event{HeartbeatRecorded{At: now, Metrics: busy}},
		},
		{
			name: "reported conditions are taken in herd's order, unknown types last as reported",
			node: registered("kube-01"),
			cmd:  RecordHeartbeat{Reported: kubeletReady},
			want: []Event{
				HeartbeatRecorded{At: now},
				NodeConditionChanged{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", At: now},
				NodeConditionChanged{Type: ConditionMemoryPressure, Status: ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available", At: now},
				NodeConditionChanged{Type: "CustomCheck", Status: ConditionUnknown, At: now},
				NodeConditionChanged{Type: ConditionNetworkUnavailable, Status: ConditionFalse, Reason: "RouteCreated", At: now},
				NodeBecameReady{At: now},
			},
		},
		{
			name: "reported conditions win over metrics",
			node: kubeletNode,
			cmd:  RecordHeartbeat{Metrics: healthy(), Reported: kubeletReady[2:3]},
			want: []Event{HeartbeatRecorded{At: now, Metrics: healthy()}},
		},
		{
			name: "a reported message change with the same status is recorded",
			node: kubeletNode,
			cmd:  RecordHeartbeat{Reported: []ReportedCondition{{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status. AppArmor enabled"}}},
			want: []Event{
				HeartbeatRecorded{At: now},
				NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status. AppArmor enabled", At: now},
			},
		},
		{
			name: "a reported Ready False is recorded and the node becomes not ready",
			node: kubeletNode,
			cmd:  RecordHeartbeat{Reported: []ReportedCondition{{Type: ConditionReady, Status: ConditionFalse, Reason: "KubeletNotReady", Message: "PLEG is not healthy"}}},
			want: []Event{
				HeartbeatRecorded{At: now},
				NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, Reason: "KubeletNotReady", Message: "PLEG is not healthy", At: now},
				NodeBecameNotReady{Status: ConditionFalse, Reason: "KubeletNotReady", At: now},
			},
		},
		{
			name: "a restarted node already Ready True becomes ready again on its first heartbeat",
			node: restarted,
			cmd:  RecordHeartbeat{Metrics: healthy()},
			want: []Event{HeartbeatRecorded{At: now, Metrics: healthy()}, NodeBecameReady{At: now}},
		},
		{
			name: "a draining node whose Ready turns True stays draining but is announced",
			node: draining,
			cmd:  RecordHeartbeat{Metrics: healthy()},
			want: []Event{
				HeartbeatRecorded{At: now, Metrics: healthy()},
				NodeConditionChanged{Type: ConditionReady, From: ConditionFalse, Status: ConditionTrue, Reason: "AgentReady", Message: "herd agent is posting ready status", At: now},
				NodeBecameReady{At: now},
			},
		},
		{
			name: "a stopped node that reports again is ready again",
			node: stopped,
			cmd:  RecordHeartbeat{Reported: kubeletReady[2:3]},
			want: []Event{
				HeartbeatRecorded{At: now},
				NodeConditionChanged{Type: ConditionReady, From: ConditionFalse, Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", At: now},
				NodeBecameReady{At: now},
			},
		},
		{
			name: "a heartbeat with neither metrics nor conditions only moves time",
			node: registered("pico-01"),
			cmd:  RecordHeartbeat{},
			want: []Event{HeartbeatRecorded{At: now}},
		},
		{name: "unknown node", node: Node{Name: "ghost"}, cmd: RecordHeartbeat{Metrics: healthy()}, wantErr: ErrNotFound},
		{name: "deleted node", node: fold(registered("web-01"), NodeDeleted{At: at(5)}), cmd: RecordHeartbeat{}, wantErr: ErrNotFound},
		{name: "invalid metrics", node: registered("web-01"), cmd: RecordHeartbeat{Metrics: &Metrics{}}, wantErr: ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideNode(tc.node, tc.cmd, now)
			// The changes as herd records them one by one; how they
			// are grouped is TestAReportsChangesAreOneEvent's.
			checkDecision(t, flat(got), err, tc.want, tc.wantErr)
		})
	}
}
