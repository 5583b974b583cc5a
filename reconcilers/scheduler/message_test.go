package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnschedulableMessageCountsReasonsAsKubernetesDoes(t *testing.T) {
	tests := []struct {
		name    string
		total   int
		reasons map[string]int
		want    string
	}{
		{
			name:  "no nodes at all",
			total: 0,
			want:  "no nodes available to schedule pods",
		},
		{
			name:    "one reason",
			total:   1,
			reasons: map[string]int{reasonMemory: 1},
			want:    "0/1 nodes are available: 1 Insufficient memory.",
		},
		{
			name:    "reasons sorted as the strings they make",
			total:   5,
			reasons: map[string]int{reasonMemory: 3, "node(s) had untolerated taint {maintenance: true}": 2},
			want:    "0/5 nodes are available: 2 node(s) had untolerated taint {maintenance: true}, 3 Insufficient memory.",
		},
		{
			name:    "so ten sorts before two",
			total:   12,
			reasons: map[string]int{reasonUnschedulable: 2, reasonCPU: 10},
			want:    "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were unschedulable.",
		},
		{
			name:    "a node short of two resources counts for both",
			total:   2,
			reasons: map[string]int{reasonCPU: 2, reasonMemory: 1},
			want:    "0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, unschedulableMessage(tt.total, tt.reasons)); diff != "" {
				t.Errorf("unschedulableMessage (-want +got):\n%s", diff)
			}
		})
	}
}
