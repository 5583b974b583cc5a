package domain

import "testing"

func TestSameUnschedulableReasons(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{name: "equal", a: "x", b: "x", want: true},
		{name: "one more node, same reason", a: "0/48 nodes are available: 48 Insufficient cpu.", b: "0/49 nodes are available: 49 Insufficient cpu.", want: true},
		{name: "same reasons in another order",
			a: "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were not ready.",
			b: "0/13 nodes are available: 3 node(s) were not ready, 10 Insufficient cpu.", want: true},
		{name: "a reason more", a: "0/2 nodes are available: 2 Insufficient cpu.", b: "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.", want: false},
		{name: "a reason gone", a: "0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods.", b: "0/2 nodes are available: 2 Insufficient cpu.", want: false},
		{name: "no nodes, then a node", a: "no nodes available to schedule pods", b: "0/1 nodes are available: 1 node(s) were not ready.", want: false},
		{name: "no reasons at all", a: "0/1 nodes are available.", b: "0/2 nodes are available.", want: true},
		{name: "a node not ready comes", a: "0/1 nodes are available: 1 Insufficient cpu.",
			b: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.", want: true},
		{name: "a node falls silent", a: "0/2 nodes are available: 2 Insufficient cpu.",
			b: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were not ready.", want: true},
		{name: "an unreachable node", a: "0/2 nodes are available: 2 Insufficient cpu.",
			b: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.", want: true},
		{name: "readiness was all there was to say", a: "0/1 nodes are available: 1 node(s) were not ready.",
			b: "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were not ready.", want: false},
		{name: "taints differ", a: "0/1 nodes are available: 1 node(s) had untolerated taint {a: 1}.", b: "0/1 nodes are available: 1 node(s) had untolerated taint {a: 2}.", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameUnschedulableReasons(tt.a, tt.b); got != tt.want {
				t.Errorf("SameUnschedulableReasons(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
