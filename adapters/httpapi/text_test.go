package httpapi

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// kubeletNode is a Node as a kubelet registers it, decoded from
// protobuf (client-go's content type for a kubelet) as a request's body
// is, with annotations besides benchNode's labels and four conditions.
func kubeletNode(t *testing.T) corev1.Node {
	t.Helper()
	in := benchNode("n1")
	in.Annotations = map[string]string{"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}
	r := httptest.NewRequestWithContext(t.Context(), "POST", "/api/v1/nodes", bytes.NewReader(encode(t, protobufType, in)))
	r.Header.Set("Content-Type", protobufType)
	var n corev1.Node
	if err := decodeObject(r, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCleanTextOfStorableTextBuildsNothing: a body whose strings are all
// text herd stores (every kubelet's Node) is found so without building a
// field's path or copying a map's entries: a handful of allocations for
// the whole Node, where the walk made ~125.
func TestCleanTextOfStorableTextBuildsNothing(t *testing.T) {
	n := kubeletNode(t)
	allocs := testing.AllocsPerRun(100, func() {
		if err := cleanText(&n); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 8 {
		t.Errorf("cleanText of a kubelet's Node: %.0f allocations, want at most 8", allocs)
	}
}

// TestCleanTextFindsBadTextAnywhereInANode: a NUL anywhere the walk looks
// (a label's key or value, an annotation, a resource's name, a
// condition's message, an address) is still refused naming its field,
// and bytes that are not UTF-8 there are still repaired.
func TestCleanTextFindsBadTextAnywhereInANode(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(n *corev1.Node, s string)
		field string
		read  func(n corev1.Node) bool
	}{
		{"a label's value", func(n *corev1.Node, s string) { n.Labels["kubernetes.io/os"] = s },
			`metadata.labels[\"kubernetes.io/os\"]`, func(n corev1.Node) bool { return n.Labels["kubernetes.io/os"] == "a\uFFFDb" }},
		{"a label's key", func(n *corev1.Node, s string) { n.Labels[s] = "v" },
			"metadata.labels", func(n corev1.Node) bool { return n.Labels["a\uFFFDb"] == "v" }},
		{"an annotation", func(n *corev1.Node, s string) { n.Annotations["node.alpha.kubernetes.io/ttl"] = s },
			"metadata.annotations", func(n corev1.Node) bool { return n.Annotations["node.alpha.kubernetes.io/ttl"] == "a\uFFFDb" }},
		{"a resource's name", func(n *corev1.Node, s string) { n.Status.Capacity[corev1.ResourceName(s)] = resource.MustParse("1") },
			"status.capacity", func(n corev1.Node) bool { _, ok := n.Status.Capacity["a\uFFFDb"]; return ok }},
		{"a condition's message", func(n *corev1.Node, s string) { n.Status.Conditions[3].Message = s },
			"status.conditions[3].message", func(n corev1.Node) bool { return n.Status.Conditions[3].Message == "a\uFFFDb" }},
		{"an address", func(n *corev1.Node, s string) { n.Status.Addresses[0].Address = s },
			"status.addresses[0].address", func(n corev1.Node) bool { return n.Status.Addresses[0].Address == "a\uFFFDb" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := kubeletNode(t)
			tc.spoil(&n, "a\x00b")
			err := cleanText(&n)
			if err == nil || !strings.Contains(err.Error(), strings.ReplaceAll(tc.field, `\"`, `"`)) {
				t.Errorf("a NUL in %s: %v, want a refusal naming %s", tc.name, err, tc.field)
			}
			n = kubeletNode(t)
			tc.spoil(&n, "a\xffb")
			if err := cleanText(&n); err != nil {
				t.Fatalf("bytes that are not UTF-8 in %s: %v", tc.name, err)
			}
			if !tc.read(n) {
				t.Errorf("bytes that are not UTF-8 in %s were not made U+FFFD", tc.name)
			}
		})
	}
}
