package scheduler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestPlanPlacesPendingPods(t *testing.T) {
	small := domain.ResourceList{"cpu": 1000, "memory": 2 * gi, "pods": 10}
	maint := tainted("maintenance", "true", domain.EffectNoSchedule)
	tests := []struct {
		name  string
		nodes []domain.Node
		pods  []domain.Pod
		want  []decision
	}{
		{
			name:  "the least allocated node wins",
			nodes: []domain.Node{node("a", small), node("b", small)},
			pods: []domain.Pod{
				pod("running", 0, 500, gi, boundTo("a")),
				pod("new", 1, 100, 100*mi),
			},
			want: []decision{{Namespace: "default", Name: "new", Node: "b"}},
		},
		{
			name:  "each pod sees those placed before it in the pass; ties go by name",
			nodes: []domain.Node{node("b", small), node("a", small)},
			pods:  []domain.Pod{pod("p3", 3, 200, 200*mi), pod("p1", 1, 200, 200*mi), pod("p2", 2, 200, 200*mi)},
			want: []decision{
				{Namespace: "default", Name: "p1", Node: "a"},
				{Namespace: "default", Name: "p2", Node: "b"},
				{Namespace: "default", Name: "p3", Node: "a"},
			},
		},
		{
			name:  "a pass fills a node and no further",
			nodes: []domain.Node{node("a", domain.ResourceList{"cpu": 1000, "memory": gi, "pods": 2})},
			pods:  []domain.Pod{pod("p1", 1, 100, mi), pod("p2", 2, 100, mi), pod("p3", 3, 100, mi)},
			want: []decision{
				{Namespace: "default", Name: "p1", Node: "a"},
				{Namespace: "default", Name: "p2", Node: "a"},
				{Namespace: "default", Name: "p3", Message: "0/1 nodes are available: 1 Too many pods."},
			},
		},
		{
			name:  "nodeSelector",
			nodes: []domain.Node{node("a", small), node("b", small, labelled("disk", "ssd"))},
			pods:  []domain.Pod{pod("db", 0, 100, mi, selecting("disk", "ssd"))},
			want:  []decision{{Namespace: "default", Name: "db", Node: "b"}},
		},
		{
			name:  "a NoSchedule taint keeps pods off unless they tolerate it",
			nodes: []domain.Node{node("a", small, maint), node("b", small, maint)},
			pods: []domain.Pod{
				pod("plain", 0, 100, mi),
				pod("fixer", 1, 100, mi, tolerating(domain.Toleration{Key: "maintenance", Operator: domain.TolerationOpExists})),
			},
			want: []decision{
				{Namespace: "default", Name: "plain", Message: "0/2 nodes are available: 2 node(s) had untolerated taint {maintenance: true}."},
				{Namespace: "default", Name: "fixer", Node: "a"},
			},
		},
		{
			name:  "a cordoned node gets no pod",
			nodes: []domain.Node{node("a", small, cordoned), node("b", small)},
			pods:  []domain.Pod{pod("running", 0, 900, gi, boundTo("b")), pod("new", 1, 100, mi)},
			want:  []decision{{Namespace: "default", Name: "new", Node: "b"}},
		},
		{
			name: "a node with pods 0 never gets a pod",
			nodes: []domain.Node{node("pico", nil, kind(domain.KindRP2040), func(n *domain.Node) {
				n.Capacity = domain.ResourceList{"cpu": 1000, "memory": 256 << 10, "pods": 0}
			})},
			pods: []domain.Pod{pod("tiny", 0, 0, 0)},
			want: []decision{{Namespace: "default", Name: "tiny", Message: "0/1 nodes are available: 1 Too many pods."}},
		},
		{
			name: "kubelet nodes are not herd's to fill, and are not counted",
			nodes: []domain.Node{
				node("k8s", big, kind(domain.KindKubelet)),
				node("a", domain.ResourceList{"cpu": 1000, "memory": gi, "pods": 10}),
			},
			pods: []domain.Pod{pod("huge", 0, 2000, mi)},
			want: []decision{{Namespace: "default", Name: "huge", Message: "0/1 nodes are available: 1 Insufficient cpu."}},
		},
		{
			name:  "no node at all",
			nodes: []domain.Node{node("k8s", big, kind(domain.KindKubelet))},
			pods:  []domain.Pod{pod("p", 0, 1, 1)},
			want:  []decision{{Namespace: "default", Name: "p", Message: "no nodes available to schedule pods"}},
		},
		{
			name: "the reasons of every node, counted",
			nodes: []domain.Node{
				node("a", small, maint), node("b", small, maint),
				node("c", small), node("d", small), node("e", small),
			},
			pods: []domain.Pod{pod("big", 0, 100, 4*gi)},
			want: []decision{{Namespace: "default", Name: "big",
				Message: "0/5 nodes are available: 2 node(s) had untolerated taint {maintenance: true}, 3 Insufficient memory."}},
		},
		{
			name: "every kind of reason at once",
			nodes: []domain.Node{
				node("a", small, ready(domain.ConditionUnknown)),
				node("b", small, cordoned),
				node("c", small, labelled("disk", "hdd")),
				node("d", domain.ResourceList{"cpu": 100, "memory": mi, "pods": 1}, labelled("disk", "ssd")),
				node("e", small, labelled("disk", "ssd")),
			},
			pods: []domain.Pod{
				pod("filler", 0, 0, 0, boundTo("d")),
				pod("p", 1, 2000, 3*gi, selecting("disk", "ssd")),
			},
			want: []decision{{Namespace: "default", Name: "p",
				Message: "0/5 nodes are available: 1 Too many pods, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were not ready, 1 node(s) were unschedulable, 2 Insufficient cpu, 2 Insufficient memory."}},
		},
		{
			name:  "an untolerated PreferNoSchedule taint outweighs load",
			nodes: []domain.Node{node("a", small, tainted("spot", "true", domain.EffectPreferNoSchedule)), node("b", small)},
			pods: []domain.Pod{
				pod("running", 0, 800, gi, boundTo("b")),
				pod("plain", 1, 100, mi),
				pod("spotty", 2, 100, mi, tolerating(domain.Toleration{Key: "spot", Operator: domain.TolerationOpExists})),
			},
			want: []decision{
				{Namespace: "default", Name: "plain", Node: "b"},
				{Namespace: "default", Name: "spotty", Node: "a"},
			},
		},
		{
			name:  "terminating pods hold their node's room; finished and finalized ones do not",
			nodes: []domain.Node{node("a", domain.ResourceList{"cpu": 1000, "memory": gi, "pods": 10}), node("b", domain.ResourceList{"cpu": 1000, "memory": gi, "pods": 10})},
			pods: []domain.Pod{
				pod("going", 0, 900, 0, boundTo("a"), terminating),
				pod("done", 0, 900, 0, boundTo("b"), phase(domain.PodSucceeded)),
				pod("failed", 0, 900, 0, boundTo("b"), phase(domain.PodFailed)),
				pod("gone", 0, 900, 0, boundTo("b"), finalized),
				pod("new", 1, 500, 0),
			},
			want: []decision{{Namespace: "default", Name: "new", Node: "b"}},
		},
		{
			name:  "only herd's own pending pods are scheduled",
			nodes: []domain.Node{node("a", small)},
			pods: []domain.Pod{
				pod("bound", 0, 1, 1, boundTo("a")),
				pod("deleting", 0, 1, 1, terminating),
				pod("kubelets", 0, 1, 1, observed),
				pod("finished", 0, 1, 1, phase(domain.PodFailed)),
				pod("gone", 0, 1, 1, finalized),
				pod("mine", 0, 1, 1),
			},
			want: []decision{{Namespace: "default", Name: "mine", Node: "a"}},
		},
		{
			name:  "a pod that already carries the message needs no write",
			nodes: []domain.Node{node("a", small, cordoned)},
			pods: []domain.Pod{
				pod("same", 0, 1, 1, unschedulableWith("0/1 nodes are available: 1 node(s) were unschedulable.")),
				pod("other", 1, 1, 1, unschedulableWith("0/1 nodes are available: 1 node(s) were not ready.")),
			},
			want: []decision{
				{Namespace: "default", Name: "same", Message: "0/1 nodes are available: 1 node(s) were unschedulable.", Recorded: true},
				{Namespace: "default", Name: "other", Message: "0/1 nodes are available: 1 node(s) were unschedulable."},
			},
		},
		{
			name:  "herd's max jobs caps a node",
			nodes: []domain.Node{node("a", small, func(n *domain.Node) { n.MaxJobs = 1 })},
			pods:  []domain.Pod{pod("p1", 1, 1, 1), pod("p2", 2, 1, 1)},
			want: []decision{
				{Namespace: "default", Name: "p1", Node: "a"},
				{Namespace: "default", Name: "p2", Message: "0/1 nodes are available: 1 Too many pods."},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, plan(tt.nodes, tt.pods, leastAllocated)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMostAllocatedPacksPods: with the MostAllocated strategy the fullest
// node that fits wins, so pods pack onto one node until it is full and
// the other stays free; the same pods under LeastAllocated spread.
func TestMostAllocatedPacksPods(t *testing.T) {
	small := domain.ResourceList{"cpu": 1000, "memory": 2 * gi, "pods": 10}
	nodes := []domain.Node{node("a", small), node("b", small)}
	pods := []domain.Pod{
		pod("running", 0, 300, 600*mi, boundTo("b")),
		pod("p1", 1, 300, 600*mi), pod("p2", 2, 300, 600*mi), pod("p3", 3, 300, 600*mi),
	}
	packed := []decision{
		{Namespace: "default", Name: "p1", Node: "b"},
		{Namespace: "default", Name: "p2", Node: "b"},
		// b is full for a fourth: the next goes to a.
		{Namespace: "default", Name: "p3", Node: "a"},
	}
	if diff := cmp.Diff(packed, plan(nodes, pods, scorer(MostAllocated, nil))); diff != "" {
		t.Errorf("MostAllocated (-want +got):\n%s", diff)
	}
	spread := []decision{
		{Namespace: "default", Name: "p1", Node: "a"},
		// a and b even: the tie goes by name.
		{Namespace: "default", Name: "p2", Node: "a"},
		{Namespace: "default", Name: "p3", Node: "b"},
	}
	if diff := cmp.Diff(spread, plan(nodes, pods, scorer(LeastAllocated, nil))); diff != "" {
		t.Errorf("LeastAllocated (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		r    room
		q    request
		want int64
	}{
		{room{CPU: 4000, Memory: 8 * gi}, request{ScoreCPU: 1000, ScoreMemory: 2 * gi}, 25},
		{room{CPU: 1000, Memory: gi, Used: used{ScoreCPU: 1000, ScoreMemory: gi}}, request{ScoreCPU: 100, ScoreMemory: 200 * mi}, 100},
		{room{CPU: 1000}, request{ScoreCPU: 500}, 25},
	} {
		if got := mostAllocated(&c.r, c.q); got != c.want {
			t.Errorf("mostAllocated(%+v, %+v) = %d, want %d", c.r, c.q, got, c.want)
		}
	}
	if err := (Config{ScoringStrategy: "Balanced"}).Validate(); err == nil || !strings.Contains(err.Error(), "--scheduler-scoring-strategy") {
		t.Errorf("an unknown strategy: %v, want an error naming the flag", err)
	}
}
