package domain

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecidePodSequence(t *testing.T) {
	running := podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"})
	evict := []PodCommand{
		TargetPodDisruption{Reason: ReasonDeletionByTaintManager, Message: "Taint manager: deleting due to NoExecute taint"},
		DeletePod{},
	}
	tests := []struct {
		name    string
		pod     Pod
		cmds    []PodCommand
		want    []Event
		wantErr error
	}{
		{
			name: "each command sees the events of those before it",
			pod:  running,
			cmds: evict,
			want: []Event{
				PodDisruptionTargeted{Reason: ReasonDeletionByTaintManager, Message: "Taint manager: deleting due to NoExecute taint", At: at(2)},
				PodDeletionRequested{GracePeriodSeconds: 30, Deadline: at(32), At: at(2)},
			},
		},
		{
			name: "a command that changes nothing adds nothing",
			pod:  podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"}, evict[0], evict[1]),
			cmds: evict,
		},
		{
			name:    "the first error stops it and nothing is returned",
			pod:     running,
			cmds:    []PodCommand{DeletePod{}, TargetPodDisruption{}},
			wantErr: ErrInvalid,
		},
		{
			name:    "a pod herd never saw",
			pod:     Pod{Namespace: "default", Name: "ghost"},
			cmds:    evict,
			wantErr: ErrNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecidePodSequence(tt.pod, at(2), tt.cmds...)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunsOwnPods(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{"no label", nil, false},
		{"agent", map[string]string{LabelRuntime: RuntimeAgent}, true},
		{"another value", map[string]string{LabelRuntime: "mock"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Node{Name: "n1", Labels: tt.labels}).RunsOwnPods(); got != tt.want {
				t.Errorf("RunsOwnPods() = %v, want %v", got, tt.want)
			}
		})
	}
}
