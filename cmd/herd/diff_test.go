package main

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func diffNode(name string, ready corev1.ConditionStatus, edit func(*corev1.Node)) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"herd.dev/kind": "linux", "zone": "a"}}}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}
	n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}
	n.Status.NodeInfo.KubeletVersion = "v1.34.0"
	if edit != nil {
		edit(&n)
	}
	return n
}

func TestNodeChangesInOperatorWords(t *testing.T) {
	before := []corev1.Node{diffNode("a", corev1.ConditionTrue, nil), diffNode("b", corev1.ConditionTrue, nil), diffNode("gone", corev1.ConditionTrue, nil)}
	after := []corev1.Node{
		diffNode("a", corev1.ConditionFalse, func(n *corev1.Node) {
			n.Spec.Unschedulable = true
			n.Spec.Taints = []corev1.Taint{{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute}}
			n.Labels["zone"] = "b"
			n.Labels["rack"] = "7"
		}),
		diffNode("b", corev1.ConditionTrue, func(n *corev1.Node) {
			n.Status.Capacity[corev1.ResourceCPU] = resource.MustParse("8")
			n.Status.NodeInfo.KubeletVersion = "v1.35.0"
			delete(n.Labels, "zone")
		}),
		diffNode("new", corev1.ConditionUnknown, nil),
	}
	want := []string{
		"node a cordoned",
		"node a Ready: True → False",
		"node a tainted node.kubernetes.io/not-ready:NoExecute",
		"node a label rack=7 added",
		"node a label zone: a → b",
		"node b label zone removed (was a)",
		"node b capacity cpu: 4 → 8",
		"node b version: v1.34.0 → v1.35.0",
		"node gone left (was Ready True)",
		"node new joined (linux, Ready Unknown)",
	}
	if got := nodeChanges(before, after); !slices.Equal(got, want) {
		t.Errorf("changes:\n%q\nwant\n%q", got, want)
	}
	if got := nodeChanges(after, after); len(got) != 0 {
		t.Errorf("the same fleet twice: %q", got)
	}
}

func TestPodChangesInOperatorWords(t *testing.T) {
	pod := func(name, node string, phase corev1.PodPhase) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name}, Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: phase}}
	}
	before := []corev1.Pod{pod("a", "", corev1.PodPending), pod("b", "n1", corev1.PodRunning), pod("c", "n1", corev1.PodRunning)}
	after := []corev1.Pod{pod("a", "n2", corev1.PodPending), pod("b", "n1", corev1.PodSucceeded), pod("d", "n2", corev1.PodRunning)}
	want := []string{
		"pod demo/a placed: - → n2",
		"pod demo/b Running → Succeeded",
		"pod demo/c ended (was Running on n1)",
		"pod demo/d started on n2 (Running)",
	}
	if got := podChanges(before, after); !slices.Equal(got, want) {
		t.Errorf("changes:\n%q\nwant\n%q", got, want)
	}
}
