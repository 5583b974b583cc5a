package domain

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecideRegisterNode(t *testing.T) {
	reg := registration("web-01")
	changed := registration("web-01")
	changed.Labels = map[string]string{"zone": "b"}
	changed.Info.AgentVersion = "herd/0.2.0"
	// A restart merges labels: what the node sends wins, the rest stays.
	restarted := changed
	restarted.Labels = map[string]string{"herd.io/pool": "builders", "zone": "b"}

	stopped := fold(ready(t, "web-01"), NodeDeregistered{At: at(20)})
	restartedTwice := registered("web-01")
	restartedTwice.RestartCount = 2
	deleted := fold(registered("web-01"), NodeDeleted{At: at(30)})

	tests := []struct {
		name    string
		node    Node
		cmd     RegisterNode
		want    []Event
		wantErr error
	}{
		{
			name: "first registration of an unknown name",
			node: Node{},
			cmd:  RegisterNode{Registration: reg},
			want: []Event{NodeRegistered{Registration: reg, At: at(60)}},
		},
		{
			name: "first registration with the name the view looked up",
			node: Node{Name: "web-01"},
			cmd:  RegisterNode{Registration: reg, FailIfExists: true},
			want: []Event{NodeRegistered{Registration: reg, At: at(60)}},
		},
		{
			name: "registration after delete starts afresh",
			node: deleted,
			cmd:  RegisterNode{Registration: reg, FailIfExists: true},
			want: []Event{NodeRegistered{Registration: reg, At: at(60)}},
		},
		{
			name: "known node registering without deregistering is a crash recovery",
			node: ready(t, "web-01"),
			cmd:  RegisterNode{Registration: changed},
			want: []Event{NodeRestarted{Registration: restarted, RestartCount: 1, Reason: RestartCrashRecovery, At: at(60)}},
		},
		{
			name: "registering while still starting is a crash recovery too",
			node: registered("web-01"),
			cmd:  RegisterNode{Registration: reg},
			want: []Event{NodeRestarted{Registration: reg, RestartCount: 1, Reason: RestartCrashRecovery, At: at(60)}},
		},
		{
			name: "known node registering after deregistering is a clean start",
			node: stopped,
			cmd:  RegisterNode{Registration: reg},
			want: []Event{NodeRestarted{Registration: reg, RestartCount: 1, Reason: RestartCleanStart, At: at(60)}},
		},
		{
			name: "restart count goes up by one",
			node: restartedTwice,
			cmd:  RegisterNode{Registration: reg},
			want: []Event{NodeRestarted{Registration: reg, RestartCount: 3, Reason: RestartCrashRecovery, At: at(60)}},
		},
		{
			name:    "create of a known node already exists",
			node:    ready(t, "web-01"),
			cmd:     RegisterNode{Registration: reg, FailIfExists: true},
			wantErr: ErrAlreadyExists,
		},
		{
			name:    "registration loaded onto another node conflicts",
			node:    registered("web-02"),
			cmd:     RegisterNode{Registration: reg},
			wantErr: ErrConflict,
		},
		{
			name:    "invalid registration",
			node:    Node{},
			cmd:     RegisterNode{Registration: Registration{Name: "Web_01"}},
			wantErr: ErrInvalid,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideNode(tc.node, tc.cmd, at(60))
			checkDecision(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func TestAlreadyExistsNamesTheNode(t *testing.T) {
	_, err := DecideNode(registered("web-01"), RegisterNode{Registration: registration("web-01"), FailIfExists: true}, at(5))
	if err == nil || !strings.Contains(err.Error(), `"web-01"`) {
		t.Fatalf("error = %v, want it to name web-01", err)
	}
}

func TestEvolveRegistration(t *testing.T) {
	reg := registration("web-01")
	changed := registration("web-01")
	changed.Labels = map[string]string{"zone": "b"}
	changed.Addresses = nil

	tests := []struct {
		name  string
		steps []step
		want  func(n Node) Node
	}{
		{
			name:  "first registration",
			steps: []step{{RegisterNode{Registration: reg}, t0}},
			want: func(Node) Node {
				return Node{
					Name: "web-01", UID: "uid-web-01", Kind: KindIllumos,
					Labels:      map[string]string{"herd.io/pool": "builders", "zone": "a", LabelKind: "illumos"},
					Annotations: map[string]string{"herd.io/owner": "ops team"},
					Addresses:   []Address{{Type: "InternalIP", Address: "10.0.0.7"}, {Type: "Hostname", Address: "web-01"}},
					Capacity:    ResourceList{"cpu": 8000, "memory": 32 << 30, "pods": 40},
					Allocatable: ResourceList{"cpu": 7500, "memory": 30 << 30, "pods": 40},
					Info:        NodeInfo{AgentVersion: "herd/0.1.0", OperatingSystem: "illumos", Architecture: "amd64"},
					MaxJobs:     20, KubeletPort: 10250,
					AgentState: AgentStarting, StartedAt: t0, RegisteredAt: t0, Version: 1,
				}
			},
		},
		{
			name: "crash restart keeps start time, heartbeat and conditions",
			steps: []step{
				{RegisterNode{Registration: reg}, t0},
				{RecordHeartbeat{Metrics: healthy()}, at(10)},
				{RegisterNode{Registration: changed}, at(60)},
			},
			want: func(before Node) Node {
				n := before.Clone()
				// The labels merge: herd.io/pool, not sent again, stays.
				n.Labels = map[string]string{"herd.io/pool": "builders", "zone": "b", LabelKind: "illumos"}
				n.Addresses = nil
				n.AgentState = AgentStarting
				n.RestartCount = 1
				n.LastRestartReason = RestartCrashRecovery
				n.RegisteredAt = at(60)
				n.Version++
				return n
			},
		},
		{
			name: "re-registration after delete starts from nothing",
			steps: []step{
				{RegisterNode{Registration: reg}, t0},
				{RecordHeartbeat{Metrics: healthy()}, at(10)},
				{RegisterNode{Registration: reg}, at(20)},
				{DeleteNode{}, at(30)},
				{RegisterNode{Registration: changed}, at(40)},
			},
			want: func(before Node) Node {
				return withRegistration(Node{
					AgentState: AgentStarting, StartedAt: at(40), RegisteredAt: at(40),
					Version: before.Version + 1,
				}, changed)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := run(t, Node{}, tc.steps[:len(tc.steps)-1]...)
			got, _ := run(t, before, tc.steps[len(tc.steps)-1])
			if diff := cmp.Diff(tc.want(before), got); diff != "" {
				t.Errorf("node (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRestartKeepsLabelsTheNodeDidNotSend: an administrator's labels and
// annotations, node-restriction.kubernetes.io/ ones included, outlive the
// node registering again without them, as they outlive a kubelet's
// restart; what the node sends again wins.
func TestRestartKeepsLabelsTheNodeDidNotSend(t *testing.T) {
	n := registered("web-01")
	n = fold(n, NodeLabelsChanged{
		Labels: map[string]string{"herd.io/pool": "builders", "zone": "a",
			"node-restriction.kubernetes.io/tier": "gold", "team": "ops"},
		Annotations: map[string]string{"herd.io/owner": "ops team", "admin-note": "keep"},
		At:          at(5),
	})
	again := registration("web-01")
	again.Labels = map[string]string{"zone": "b"}
	again.Annotations = nil
	evs, err := DecideNode(n, RegisterNode{Registration: again}, at(10))
	if err != nil {
		t.Fatal(err)
	}
	got := fold(n, evs...)
	wantLabels := map[string]string{"herd.io/pool": "builders", "zone": "b",
		"node-restriction.kubernetes.io/tier": "gold", "team": "ops", LabelKind: "illumos"}
	if diff := cmp.Diff(wantLabels, got.Labels); diff != "" {
		t.Errorf("labels after the restart (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"herd.io/owner": "ops team", "admin-note": "keep"}, got.Annotations); diff != "" {
		t.Errorf("annotations after the restart (-want +got):\n%s", diff)
	}
}
