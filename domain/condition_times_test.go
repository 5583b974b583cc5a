package domain

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// cond is a condition as a node holds it, for wanted values.
func cond(t ConditionType, s ConditionStatus, reason, msg string, heartbeat, transition time.Time) Condition {
	return Condition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: heartbeat, LastTransitionTime: transition}
}

func TestConditionTimes(t *testing.T) {
	pressed := healthy()
	pressed.MemoryAvailableBytes = 50 // 95% used
	relieved := healthy()
	relieved.MemoryAvailableBytes = 100 // exactly 90%: no pressure

	tests := []struct {
		name  string
		steps []step
		want  []Condition
		// wantChanges are the memory transitions recorded, in order.
		wantChanges []ConditionStatus
	}{
		{
			name: "transition time stays while heartbeat time moves",
			steps: []step{
				{RecordHeartbeat{Metrics: healthy()}, at(10)},
				{RecordHeartbeat{Metrics: healthy()}, at(20)},
				{RecordHeartbeat{Metrics: healthy()}, at(30)},
			},
			want: []Condition{
				cond(ConditionReady, ConditionTrue, "AgentReady", "herd agent is posting ready status", at(30), at(10)),
				cond(ConditionMemoryPressure, ConditionFalse, "HasSufficientMemory", "memory used at or below the 90% threshold", at(30), at(10)),
				cond(ConditionDiskPressure, ConditionFalse, "HasNoDiskPressure", "disk used at or below the 90% threshold", at(30), at(10)),
				cond(ConditionPIDPressure, ConditionFalse, "HasSufficientPID", "PIDs in use at or below the 90% threshold", at(30), at(10)),
				cond(ConditionHighLoad, ConditionFalse, "NormalLoad", "load1 at or below the threshold of 8 (2 per CPU, 4 CPUs)", at(30), at(10)),
			},
			wantChanges: []ConditionStatus{ConditionFalse},
		},
		{
			name: "memory pressure comes and goes, other conditions keep their transition time",
			steps: []step{
				{RecordHeartbeat{Metrics: healthy()}, at(10)},
				{RecordHeartbeat{Metrics: pressed}, at(20)},
				{RecordHeartbeat{Metrics: pressed}, at(30)},
				{RecordHeartbeat{Metrics: relieved}, at(40)},
				{RecordHeartbeat{Metrics: healthy()}, at(50)},
			},
			want: []Condition{
				cond(ConditionReady, ConditionTrue, "AgentReady", "herd agent is posting ready status", at(50), at(10)),
				cond(ConditionMemoryPressure, ConditionFalse, "HasSufficientMemory", "memory used at or below the 90% threshold", at(50), at(40)),
				cond(ConditionDiskPressure, ConditionFalse, "HasNoDiskPressure", "disk used at or below the 90% threshold", at(50), at(10)),
				cond(ConditionPIDPressure, ConditionFalse, "HasSufficientPID", "PIDs in use at or below the 90% threshold", at(50), at(10)),
				cond(ConditionHighLoad, ConditionFalse, "NormalLoad", "load1 at or below the threshold of 8 (2 per CPU, 4 CPUs)", at(50), at(10)),
			},
			wantChanges: []ConditionStatus{ConditionFalse, ConditionTrue, ConditionFalse},
		},
		{
			name: "reported conditions take herd's time; a new message keeps the transition time",
			steps: []step{
				{RecordHeartbeat{Reported: []ReportedCondition{{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", Message: "a"}}}, at(10)},
				{RecordHeartbeat{Reported: []ReportedCondition{{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", Message: "b"}}}, at(20)},
				{RecordHeartbeat{Reported: []ReportedCondition{{Type: ConditionMemoryPressure, Status: ConditionTrue, Reason: "KubeletHasInsufficientMemory"}}}, at(30)},
				{RecordHeartbeat{}, at(40)},
			},
			want: []Condition{
				cond(ConditionReady, ConditionTrue, "KubeletReady", "b", at(40), at(10)),
				cond(ConditionMemoryPressure, ConditionTrue, "KubeletHasInsufficientMemory", "", at(40), at(30)),
			},
			wantChanges: []ConditionStatus{ConditionTrue},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, events := run(t, registered("web-01"), tc.steps...)
			if diff := cmp.Diff(tc.want, n.ConditionsHeard()); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			last := tc.steps[len(tc.steps)-1].now
			if !n.LastHeartbeat.Equal(last) || n.AgentState != AgentReady {
				t.Errorf("last heartbeat %v, agent %s; want %v, Ready", n.LastHeartbeat, n.AgentState, last)
			}
			var changes []ConditionStatus
			for _, e := range flat(events) {
				if c, ok := e.(NodeConditionChanged); ok && c.Type == ConditionMemoryPressure {
					changes = append(changes, c.Status)
				}
			}
			if diff := cmp.Diff(tc.wantChanges, changes); diff != "" {
				t.Errorf("memory transitions (-want +got):\n%s", diff)
			}
		})
	}
}
