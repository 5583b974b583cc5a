package domain

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestObserveMachine(t *testing.T) {
	kubeletNode := func(t *testing.T) Node {
		n := ready(t, "worker-a")
		n.Capacity = ResourceList{"memory": 16 << 30, "pods": 110}
		n.Allocatable = ResourceList{"memory": 15 << 30, "pods": 110}
		n.Info = NodeInfo{KernelVersion: "6.1.0"}
		return n
	}
	spec := ObserveMachine{Capacity: ResourceList{"cpu": 2000}, Allocatable: ResourceList{"cpu": 2000},
		MachineID: "f3fa05a9", SystemUUID: "ec2856b5", BootID: "bdab808d"}
	tests := []struct {
		name     string
		node     func(*testing.T) Node
		cmd      ObserveMachine
		want     []Event
		wantNode func(Node) Node
		wantErr  error
	}{
		{"fills what the kubelet gave none of", kubeletNode, spec,
			[]Event{NodeMachineObserved{Capacity: ResourceList{"cpu": 2000}, Allocatable: ResourceList{"cpu": 2000},
				MachineID: "f3fa05a9", SystemUUID: "ec2856b5", BootID: "bdab808d", At: at(20)}},
			func(n Node) Node {
				n.Capacity = ResourceList{"cpu": 2000, "memory": 16 << 30, "pods": 110}
				n.Allocatable = ResourceList{"cpu": 2000, "memory": 15 << 30, "pods": 110}
				n.Info = NodeInfo{KernelVersion: "6.1.0", MachineID: "f3fa05a9", SystemUUID: "ec2856b5", BootID: "bdab808d"}
				return n
			}, nil},
		{"the same machine again is no news", func(t *testing.T) Node {
			n := kubeletNode(t)
			return EvolveNode(n, NodeMachineObserved{Capacity: spec.Capacity, Allocatable: spec.Allocatable,
				MachineID: spec.MachineID, SystemUUID: spec.SystemUUID, BootID: spec.BootID, At: at(19)})
		}, spec, nil, nil, nil},
		{"a new boot is news", func(t *testing.T) Node {
			n := kubeletNode(t)
			return EvolveNode(n, NodeMachineObserved{Capacity: spec.Capacity, Allocatable: spec.Allocatable,
				MachineID: spec.MachineID, SystemUUID: spec.SystemUUID, BootID: spec.BootID, At: at(19)})
		}, ObserveMachine{BootID: "0b5e3c11"}, []Event{NodeMachineObserved{BootID: "0b5e3c11", At: at(20)}}, nil, nil},
		{"nothing said changes nothing", kubeletNode, ObserveMachine{}, nil, nil, nil},
		{"a new kubelet version is news", kubeletNode, ObserveMachine{AgentVersion: "v1.34.2"},
			[]Event{NodeMachineObserved{AgentVersion: "v1.34.2", At: at(20)}},
			func(n Node) Node {
				n.Info.AgentVersion = "v1.34.2"
				return n
			}, nil},
		{"the same kubelet version is no news", func(t *testing.T) Node {
			n := kubeletNode(t)
			return EvolveNode(n, NodeMachineObserved{AgentVersion: "v1.34.2", At: at(19)})
		}, ObserveMachine{AgentVersion: "v1.34.2"}, nil, nil, nil},
		{"an unknown node", func(*testing.T) Node { return Node{Name: "worker-a"} }, spec, nil, nil, ErrNotFound},
		{"a negative figure", kubeletNode, ObserveMachine{Capacity: ResourceList{"cpu": -1}}, nil, nil, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.node(t)
			got, err := DecideNode(n, tt.cmd, at(20))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if tt.wantNode == nil {
				return
			}
			after := n
			for _, e := range got {
				after = EvolveNode(after, e)
			}
			want := tt.wantNode(n)
			if diff := cmp.Diff(want.Capacity, after.Capacity); diff != "" {
				t.Errorf("capacity (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.Allocatable, after.Allocatable); diff != "" {
				t.Errorf("allocatable (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.Info, after.Info); diff != "" {
				t.Errorf("info (-want +got):\n%s", diff)
			}
		})
	}
}
