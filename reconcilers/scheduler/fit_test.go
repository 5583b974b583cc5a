package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestStaticReasonFollowsKubernetesFilters(t *testing.T) {
	exists := domain.TolerationOpExists
	tests := []struct {
		name string
		node domain.Node
		pod  domain.Pod
		want string
	}{
		{name: "a ready node takes any pod", node: node("n", big), pod: pod("p", 0, 1, 1)},
		{name: "Ready False", node: node("n", big, ready(domain.ConditionFalse)), pod: pod("p", 0, 1, 1), want: reasonNotReady},
		{name: "Ready Unknown", node: node("n", big, ready(domain.ConditionUnknown)), pod: pod("p", 0, 1, 1), want: reasonNotReady},
		{
			name: "no Ready condition yet",
			node: node("n", big, func(n *domain.Node) { n.Conditions = nil }),
			pod:  pod("p", 0, 1, 1), want: reasonNotReady,
		},
		{name: "cordoned", node: node("n", big, cordoned), pod: pod("p", 0, 1, 1), want: reasonUnschedulable},
		{
			name: "cordoned, tolerated by key",
			node: node("n", big, cordoned),
			pod:  pod("p", 0, 1, 1, tolerating(domain.Toleration{Key: domain.TaintUnschedulable, Operator: exists, Effect: domain.EffectNoSchedule})),
		},
		{
			name: "cordoned, tolerated by a toleration of everything",
			node: node("n", big, cordoned),
			pod:  pod("p", 0, 1, 1, tolerating(domain.Toleration{Operator: exists})),
		},
		{
			name: "cordoned, the key tolerated only for NoExecute",
			node: node("n", big, cordoned),
			pod:  pod("p", 0, 1, 1, tolerating(domain.Toleration{Key: domain.TaintUnschedulable, Operator: exists, Effect: domain.EffectNoExecute})),
			want: reasonUnschedulable,
		},
		{
			name: "NoSchedule taint not tolerated",
			node: node("n", big, tainted("maintenance", "true", domain.EffectNoSchedule)),
			pod:  pod("p", 0, 1, 1), want: "node(s) had untolerated taint {maintenance: true}",
		},
		{
			name: "NoSchedule taint tolerated with Equal",
			node: node("n", big, tainted("maintenance", "true", domain.EffectNoSchedule)),
			pod:  pod("p", 0, 1, 1, tolerating(domain.Toleration{Key: "maintenance", Value: "true", Effect: domain.EffectNoSchedule})),
		},
		{
			name: "Equal with another value does not tolerate",
			node: node("n", big, tainted("maintenance", "true", domain.EffectNoSchedule)),
			pod:  pod("p", 0, 1, 1, tolerating(domain.Toleration{Key: "maintenance", Operator: domain.TolerationOpEqual, Value: "false"})),
			want: "node(s) had untolerated taint {maintenance: true}",
		},
		{
			name: "an empty effect tolerates every effect",
			node: node("n", big, tainted("maintenance", "true", domain.EffectNoExecute)),
			pod:  pod("p", 0, 1, 1, tolerating(domain.Toleration{Key: "maintenance", Operator: exists})),
		},
		{
			name: "NoExecute taint not tolerated, shown with an empty value",
			node: node("n", big, tainted("dedicated", "", domain.EffectNoExecute)),
			pod:  pod("p", 0, 1, 1), want: "node(s) had untolerated taint {dedicated: }",
		},
		{
			name: "PreferNoSchedule does not filter",
			node: node("n", big, tainted("spot", "true", domain.EffectPreferNoSchedule)),
			pod:  pod("p", 0, 1, 1),
		},
		{
			name: "the first untolerated taint is the reason",
			node: node("n", big, tainted("a", "1", domain.EffectPreferNoSchedule), tainted("b", "2", domain.EffectNoSchedule), tainted("c", "3", domain.EffectNoExecute)),
			pod:  pod("p", 0, 1, 1), want: "node(s) had untolerated taint {b: 2}",
		},
		{
			name: "nodeSelector matches",
			node: node("n", big, labelled("disk", "ssd", "zone", "a")),
			pod:  pod("p", 0, 1, 1, selecting("disk", "ssd")),
		},
		{
			name: "nodeSelector with another value",
			node: node("n", big, labelled("disk", "hdd")),
			pod:  pod("p", 0, 1, 1, selecting("disk", "ssd")), want: reasonSelector,
		},
		{
			name: "nodeSelector on a label the node lacks, even for an empty value",
			node: node("n", big),
			pod:  pod("p", 0, 1, 1, selecting("disk", "")), want: reasonSelector,
		},
		{
			name: "not ready comes before cordoned",
			node: node("n", big, ready(domain.ConditionFalse), cordoned),
			pod:  pod("p", 0, 1, 1), want: reasonNotReady,
		},
		{
			name: "cordoned comes before a taint",
			node: node("n", big, cordoned, tainted("maintenance", "true", domain.EffectNoSchedule)),
			pod:  pod("p", 0, 1, 1), want: reasonUnschedulable,
		},
		{
			name: "a taint comes before the selector",
			node: node("n", big, tainted("maintenance", "true", domain.EffectNoSchedule)),
			pod:  pod("p", 0, 1, 1, selecting("disk", "ssd")), want: "node(s) had untolerated taint {maintenance: true}",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, staticReason(tt.pod.Spec, tt.node)); diff != "" {
				t.Errorf("staticReason (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCandidateLeavesKubeletAndDeletedNodesOut(t *testing.T) {
	tests := []struct {
		name string
		node domain.Node
		want bool
	}{
		{name: "linux", node: node("n", big), want: true},
		{name: "illumos", node: node("n", big, kind(domain.KindIllumos)), want: true},
		{name: "rp2040", node: node("n", big, kind(domain.KindRP2040)), want: true},
		{name: "kubelet", node: node("n", big, kind(domain.KindKubelet))},
		{name: "deleted", node: node("n", big, func(n *domain.Node) { n.Deleted = true })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := candidate(tt.node); got != tt.want {
				t.Errorf("candidate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRoomOfReadsAllocatable(t *testing.T) {
	tests := []struct {
		name string
		node domain.Node
		want room
	}{
		{
			name: "allocatable",
			node: node("n", domain.ResourceList{"cpu": 3500, "memory": 7 * gi, "pods": 16}, func(n *domain.Node) {
				n.Capacity = domain.ResourceList{"cpu": 4000, "memory": 8 * gi, "pods": 16}
				n.MaxJobs = 4
			}),
			want: room{Pods: 16, MaxJobs: 4, CPU: 3500, Memory: 7 * gi},
		},
		{
			name: "no pods entry is no limit",
			node: node("n", domain.ResourceList{"cpu": 1000}),
			want: room{Pods: -1, CPU: 1000},
		},
		{
			name: "a Pico reports capacity only, with pods 0",
			node: node("pico", nil, kind(domain.KindRP2040), func(n *domain.Node) {
				n.Capacity = domain.ResourceList{"cpu": 1000, "memory": 256 << 10, "pods": 0}
			}),
			want: room{Pods: 0, CPU: 1000, Memory: 256 << 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, roomOf(tt.node)); diff != "" {
				t.Errorf("roomOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestOfSumsContainers(t *testing.T) {
	tests := []struct {
		name       string
		containers []domain.Container
		want       request
	}{
		{
			name: "two containers",
			containers: []domain.Container{
				{Name: "a", Requests: domain.ResourceList{"cpu": 250, "memory": 64 * mi}},
				{Name: "b", Requests: domain.ResourceList{"cpu": 750, "memory": 192 * mi}},
			},
			want: request{CPU: 1000, Memory: 256 * mi, ScoreCPU: 1000, ScoreMemory: 256 * mi},
		},
		{
			name: "a container without requests counts Kubernetes' defaults for the score only",
			containers: []domain.Container{
				{Name: "a", Requests: domain.ResourceList{"cpu": 250}},
				{Name: "b"},
			},
			want: request{CPU: 250, ScoreCPU: 350, ScoreMemory: 400 * mi},
		},
		{
			name:       "an explicit zero stays zero",
			containers: []domain.Container{{Name: "a", Requests: domain.ResourceList{"cpu": 0, "memory": 0}}},
			want:       request{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := domain.Pod{Spec: domain.PodSpec{Containers: tt.containers}}
			if diff := cmp.Diff(tt.want, requestOf(p)); diff != "" {
				t.Errorf("requestOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoomFitsByNodeResourcesFitRules(t *testing.T) {
	tests := []struct {
		name string
		room room
		req  request
		want []string
	}{
		{name: "fits", room: room{Pods: 10, CPU: 1000, Memory: gi}, req: request{CPU: 500, Memory: 512 * mi}},
		{
			name: "fits exactly",
			room: room{Pods: 2, CPU: 1000, Memory: gi, Used: used{Pods: 1, CPU: 500, Memory: 512 * mi}},
			req:  request{CPU: 500, Memory: 512 * mi},
		},
		{name: "pods 0 takes nothing", room: room{Pods: 0, CPU: 1000, Memory: gi}, req: request{}, want: []string{reasonTooManyPods}},
		{name: "pods full", room: room{Pods: 2, CPU: 1000, Memory: gi, Used: used{Pods: 2}}, req: request{}, want: []string{reasonTooManyPods}},
		{name: "no pods entry, no limit", room: room{Pods: -1, CPU: 1000, Memory: gi, Used: used{Pods: 5000}}, req: request{CPU: 1}},
		{name: "max jobs reached", room: room{Pods: 110, MaxJobs: 3, CPU: 1000, Memory: gi, Used: used{Pods: 3}}, req: request{}, want: []string{reasonTooManyPods}},
		{name: "max jobs not reached", room: room{Pods: 110, MaxJobs: 3, CPU: 1000, Memory: gi, Used: used{Pods: 2}}, req: request{}},
		{
			name: "cpu short",
			room: room{Pods: 10, CPU: 1000, Memory: gi, Used: used{Pods: 1, CPU: 600}},
			req:  request{CPU: 500}, want: []string{reasonCPU},
		},
		{
			name: "memory short",
			room: room{Pods: 10, CPU: 1000, Memory: gi, Used: used{Pods: 1, Memory: 768 * mi}},
			req:  request{Memory: 512 * mi}, want: []string{reasonMemory},
		},
		{
			name: "everything short, in the plugin's order",
			room: room{Pods: 1, CPU: 1000, Memory: gi, Used: used{Pods: 1, CPU: 1000, Memory: gi}},
			req:  request{CPU: 1, Memory: 1}, want: []string{reasonTooManyPods, reasonCPU, reasonMemory},
		},
		{name: "no cpu offered, some asked", room: room{Pods: -1, Memory: gi}, req: request{CPU: 1}, want: []string{reasonCPU}},
		{name: "no cpu offered, none asked", room: room{Pods: -1, Memory: gi}, req: request{Memory: 1, ScoreCPU: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.room.shortfalls(tt.req)); diff != "" {
				t.Errorf("shortfalls (-want +got):\n%s", diff)
			}
			if got, want := tt.room.fits(tt.req), len(tt.want) == 0; got != want {
				t.Errorf("fits = %v, want %v", got, want)
			}
		})
	}
}
