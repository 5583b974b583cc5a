package scheduler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// TestRequestedToCapacityRatioScoresByItsShape: the score is the shape's
// line at each resource's share requested with the pod (on the
// scheduler's 0–100 scale), over-commitment counting as 100%, averaged
// over the resources that score above 0 and rounded, as the Kubernetes
// scheduler's NodeResourcesFit plugin scores it.
func TestRequestedToCapacityRatioScoresByItsShape(t *testing.T) {
	pack := Shape{{0, 0}, {100, 10}}
	spread := Shape{{0, 10}, {100, 0}}
	half := Shape{{0, 0}, {50, 10}, {100, 0}}
	quarter := room{CPU: 4000, Memory: 8 * gi}
	for _, c := range []struct {
		name  string
		shape Shape
		r     room
		q     request
		want  int64
	}{
		{"pack, a quarter requested", pack, quarter, request{ScoreCPU: 1000, ScoreMemory: 2 * gi}, 25},
		{"spread, a quarter requested", spread, quarter, request{ScoreCPU: 1000, ScoreMemory: 2 * gi}, 75},
		{"half full is best: a quarter", half, quarter, request{ScoreCPU: 1000, ScoreMemory: 2 * gi}, 50},
		{"half full is best: a half", half, quarter, request{ScoreCPU: 2000, ScoreMemory: 4 * gi}, 100},
		{"half full is best: three quarters", half, quarter, request{ScoreCPU: 3000, ScoreMemory: 6 * gi}, 50},
		{"over-committed is 100%", pack, room{CPU: 1000, Memory: gi, Used: used{ScoreCPU: 900}}, request{ScoreCPU: 200, ScoreMemory: gi / 2}, 75},
		{"a resource scoring 0 is left out of the average", pack, quarter, request{ScoreCPU: 1000}, 25},
		{"the average is rounded", pack, room{CPU: 1000, Memory: 1000}, request{ScoreCPU: 250, ScoreMemory: 300}, 28},
		{"a resource the node does not offer is left out", pack, room{CPU: 1000}, request{ScoreCPU: 500, ScoreMemory: 100}, 50},
		{"below the first point, its score", Shape{{20, 4}, {100, 10}}, quarter, request{ScoreCPU: 400, ScoreMemory: gi / 2}, 40},
		{"nothing scores", pack, room{}, request{ScoreCPU: 500}, 0},
	} {
		if got := c.shape.requestedToCapacityRatio(&c.r, c.q); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}

	// A packing shape places as MostAllocated does.
	small := domain.ResourceList{"cpu": 1000, "memory": 2 * gi, "pods": 10}
	nodes := []domain.Node{node("a", small), node("b", small)}
	pods := []domain.Pod{
		pod("running", 0, 300, 600*mi, boundTo("b")),
		pod("p1", 1, 300, 600*mi), pod("p2", 2, 300, 600*mi), pod("p3", 3, 300, 600*mi),
	}
	if diff := cmp.Diff(plan(nodes, pods, scorer(MostAllocated, nil)), plan(nodes, pods, scorer(RequestedToCapacityRatio, pack))); diff != "" {
		t.Errorf("RequestedToCapacityRatio 0=0,100=10 against MostAllocated (-want +got):\n%s", diff)
	}
}

// TestTheScoringShapeIsReadAndChecked: --scheduler-scoring-shape takes
// UTILIZATION=SCORE points and refuses, naming what is wrong, what the
// Kubernetes scheduler refuses; RequestedToCapacityRatio needs a shape.
func TestTheScoringShapeIsReadAndChecked(t *testing.T) {
	s, err := ParseShape(" 0=0, 50=10 ,100=0")
	if err != nil || !cmp.Equal(s, Shape{{0, 0}, {50, 10}, {100, 0}}) || s.String() != "0=0,50=10,100=0" {
		t.Fatalf("ParseShape: %v, %v", s, err)
	}
	if s, err := ParseShape(""); s != nil || err != nil {
		t.Errorf("an empty shape: %v, %v; want none", s, err)
	}
	for in, want := range map[string]string{
		"0=0,100=11": "score 11: want 0 to 10",
		"0=0,101=10": "utilization 101: want a percentage from 0 to 100",
		"50=1,10=2":  "utilization 10 after 50: want the points in increasing utilization",
		"50=1,50=2":  "in increasing utilization",
		"half=5":     `"half=5" is not UTILIZATION=SCORE`,
		"10":         "is not UTILIZATION=SCORE",
	} {
		if _, err := ParseShape(in); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--scheduler-scoring-shape") {
			t.Errorf("ParseShape(%q): %v, want an error naming the flag and saying %q", in, err, want)
		}
	}
	if err := (Config{ScoringStrategy: RequestedToCapacityRatio}).Validate(); err == nil || !strings.Contains(err.Error(), "needs --scheduler-scoring-shape") {
		t.Errorf("RequestedToCapacityRatio without a shape: %v, want it refused", err)
	}
	if err := (Config{ScoringStrategy: RequestedToCapacityRatio, Shape: Shape{{0, 0}, {100, 10}}}).Validate(); err != nil {
		t.Errorf("RequestedToCapacityRatio with a shape: %v", err)
	}
	if err := (Config{ScoringStrategy: LeastAllocated, Shape: Shape{{0, 0}, {100, 10}}}).Validate(); err != nil {
		t.Errorf("a shape beside another strategy, which leaves it aside: %v", err)
	}
}
