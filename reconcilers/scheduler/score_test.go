package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestLeastAllocatedScore(t *testing.T) {
	tests := []struct {
		name string
		room room
		req  request
		want int64
	}{
		{name: "empty node, nothing asked", room: room{CPU: 4000, Memory: 8 * gi}, want: 100},
		{
			name: "half used once the pod is on",
			room: room{CPU: 4000, Memory: 8 * gi, Used: used{ScoreCPU: 1000, ScoreMemory: 2 * gi}},
			req:  request{ScoreCPU: 1000, ScoreMemory: 2 * gi}, want: 50,
		},
		{
			name: "the average of cpu and memory, rounded down",
			room: room{CPU: 4000, Memory: 8 * gi, Used: used{ScoreCPU: 3000}},
			req:  request{ScoreCPU: 1000, ScoreMemory: 2 * gi}, want: (0 + 75) / 2,
		},
		{name: "no memory offered scores 0 for memory", room: room{CPU: 1000}, req: request{ScoreCPU: 500}, want: 25},
		{
			name: "over-committed scores 0",
			room: room{CPU: 1000, Memory: gi, Used: used{ScoreCPU: 1000, ScoreMemory: gi}},
			req:  request{ScoreCPU: 100, ScoreMemory: 200 * mi}, want: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := leastAllocated(&tt.room, tt.req); got != tt.want {
				t.Errorf("leastAllocated = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestTaintScorePenalisesUntoleratedPreferNoSchedule(t *testing.T) {
	spot := domain.Taint{Key: "spot", Value: "true", Effect: domain.EffectPreferNoSchedule}
	old := domain.Taint{Key: "old", Effect: domain.EffectPreferNoSchedule}
	hard := domain.Taint{Key: "hard", Effect: domain.EffectNoSchedule}
	tests := []struct {
		name   string
		taints []domain.Taint
		tols   []domain.Toleration
		want   int64
	}{
		{name: "no taints", want: 0},
		{name: "two untolerated", taints: []domain.Taint{spot, old, hard}, want: 2},
		{
			name: "tolerated for PreferNoSchedule", taints: []domain.Taint{spot, old},
			tols: []domain.Toleration{{Key: "spot", Operator: domain.TolerationOpExists, Effect: domain.EffectPreferNoSchedule}}, want: 1,
		},
		{
			name: "tolerated for every effect", taints: []domain.Taint{spot},
			tols: []domain.Toleration{{Key: "spot", Value: "true"}}, want: 0,
		},
		{
			name: "a toleration for NoSchedule does not count", taints: []domain.Taint{spot},
			tols: []domain.Toleration{{Key: "spot", Value: "true", Effect: domain.EffectNoSchedule}}, want: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := avoidedTaints(tt.taints, preferredTolerations(tt.tols)); got != tt.want {
				t.Errorf("avoidedTaints = %d, want %d", got, tt.want)
			}
		})
	}

	normalised := []struct{ count, worst, want int64 }{
		{0, 0, 100}, {0, 2, 100}, {1, 2, 50}, {2, 2, 0}, {1, 3, 67},
	}
	var got, want []int64
	for _, n := range normalised {
		got, want = append(got, taintScore(n.count, n.worst)), append(want, n.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("taintScore (-want +got):\n%s", diff)
	}
}
