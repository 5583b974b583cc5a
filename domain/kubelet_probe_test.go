package domain

import "testing"

func TestDecideRecordKubeletProbe(t *testing.T) {
	now := at(30)
	refused := RecordKubeletProbe{Reason: ReasonConnectionRefused, Message: "GET http://10.0.0.7:10250/healthz: connection refused"}
	healthy := RecordKubeletProbe{Reachable: true, Reason: ReasonKubeletHealthy, Message: "GET http://10.0.0.7:10250/healthz: 200 OK"}
	failing := fold(ready(t, "web-01"), NodeConditionChanged{Type: ConditionKubeletReachable, Status: ConditionFalse,
		Reason: refused.Reason, Message: refused.Message, At: at(20)})
	tests := []struct {
		name    string
		node    Node
		cmd     RecordKubeletProbe
		want    []Event
		wantErr error
	}{
		{name: "the first probe adds the condition", node: ready(t, "web-01"), cmd: healthy,
			want: []Event{NodeConditionChanged{Type: ConditionKubeletReachable, Status: ConditionTrue, Reason: healthy.Reason, Message: healthy.Message, At: now}}},
		{name: "the same failure again records nothing", node: failing, cmd: refused},
		{name: "recovery", node: failing, cmd: healthy,
			want: []Event{NodeConditionChanged{Type: ConditionKubeletReachable, From: ConditionFalse, Status: ConditionTrue, Reason: healthy.Reason, Message: healthy.Message, At: now}}},
		{name: "another failure is news", node: failing, cmd: RecordKubeletProbe{Reason: ReasonProbeTimeout, Message: "no answer within 2s"},
			want: []Event{NodeConditionChanged{Type: ConditionKubeletReachable, From: ConditionFalse, Status: ConditionFalse, Reason: ReasonProbeTimeout, Message: "no answer within 2s", At: now}}},
		{name: "a node herd does not know", node: Node{Name: "gone"}, cmd: healthy, wantErr: ErrNotFound},
		{name: "a probe without a reason", node: ready(t, "web-01"), cmd: RecordKubeletProbe{Reachable: true}, wantErr: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecideNode(tt.node, tt.cmd, now)
			checkDecision(t, got, err, tt.want, tt.wantErr)
		})
	}
	n := fold(failing, NodeConditionChanged{Type: ConditionKubeletReachable, From: ConditionFalse, Status: ConditionTrue, Reason: healthy.Reason, At: now})
	if c, _ := n.Condition(ConditionKubeletReachable); !c.LastTransitionTime.Equal(now) || c.Status != ConditionTrue {
		t.Errorf("condition after recovery: %+v", c)
	}
}
