package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRebootIsARestart(t *testing.T) {
	now := at(60)
	reg := registration("pico-01")
	reg.Info.BootID = "boot-1"
	reported := []ReportedCondition{{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady"}}
	node := fold(Node{Name: "pico-01"}, NodeRegistered{Registration: reg, At: t0}, HeartbeatRecorded{At: at(10)},
		NodeConditionChanged{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", At: at(10)}, NodeBecameReady{At: at(10)})
	rebooted := reg
	rebooted.Info.BootID = "boot-2"
	rebooted.Addresses = []Address{{Type: "InternalIP", Address: "10.0.0.8"}}
	noBoot := fold(Node{Name: "pico-01"}, NodeRegistered{Registration: registration("pico-01"), At: t0})

	tests := []struct {
		name string
		node Node
		cmd  RecordHeartbeat
		want []Event
	}{
		{
			name: "a new boot ID restarts the node before the heartbeat",
			node: node,
			cmd:  RecordHeartbeat{Reported: reported, System: &ReportedSystem{Info: rebooted.Info, Addresses: rebooted.Addresses}},
			want: []Event{
				NodeRestarted{Registration: rebooted, RestartCount: 1, Reason: RestartReboot, At: now},
				HeartbeatRecorded{At: now},
				NodeBecameReady{At: now},
			},
		},
		{
			name: "the same boot ID is a plain heartbeat",
			node: node,
			cmd:  RecordHeartbeat{Reported: reported, System: &ReportedSystem{Info: reg.Info}},
			want: []Event{HeartbeatRecorded{At: now}},
		},
		{
			name: "a boot ID herd never knew is nothing to compare with",
			node: noBoot,
			cmd:  RecordHeartbeat{System: &ReportedSystem{Info: rebooted.Info}},
			want: []Event{HeartbeatRecorded{At: now}},
		},
		{
			name: "a report without a boot ID says nothing about reboots",
			node: node,
			cmd:  RecordHeartbeat{System: &ReportedSystem{}},
			want: []Event{HeartbeatRecorded{At: now}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecideNode(tt.node, tt.cmd, now)
			checkDecision(t, got, err, tt.want, nil)
		})
	}
	after := fold(node, NodeRestarted{Registration: rebooted, RestartCount: 1, Reason: RestartReboot, At: now})
	if after.RestartCount != 1 || after.LastRestartReason != RestartReboot || after.Info.BootID != "boot-2" || !after.StartedAt.Equal(t0) {
		t.Errorf("after reboot: restarts %d (%s), boot %s, started %v", after.RestartCount, after.LastRestartReason, after.Info.BootID, after.StartedAt)
	}
	if diff := cmp.Diff(rebooted.Addresses, after.Addresses); diff != "" {
		t.Errorf("addresses after reboot (-want +got):\n%s", diff)
	}
}
