package reconcilers_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

func TestKeyOfParsesTheStreamOnce(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   reconcilers.Key
		wantOK bool
	}{
		{name: "node", stream: domain.NodeStream("web-01"),
			want: reconcilers.Key{Aggregate: domain.NodeAggregate, Name: "web-01"}, wantOK: true},
		{name: "pod", stream: domain.PodStream("default", "nginx"),
			want: reconcilers.Key{Aggregate: domain.PodAggregate, Namespace: "default", Name: "nginx"}, wantOK: true},
		{name: "lease", stream: domain.LeaseStream(domain.NodeLeaseNamespace, "web-01"),
			want: reconcilers.Key{Aggregate: domain.LeaseAggregate, Namespace: domain.NodeLeaseNamespace, Name: "web-01"}, wantOK: true},
		{name: "a pool's CIDR is one name", stream: domain.IPPoolStream("10.0.0.0/24"),
			want: reconcilers.Key{Aggregate: domain.IPPoolAggregate, Name: "10.0.0.0/24"}, wantOK: true},
		{name: "no aggregate", stream: "nothing/here"},
		{name: "no name", stream: domain.NodeStream("")},
		{name: "a pod without a namespace", stream: domain.PodAggregate.Stream("nginx")},
		{name: "a pod without a name", stream: domain.PodStream("default", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := reconcilers.KeyOf(events.Record{Stream: tt.stream})
			if ok != tt.wantOK {
				t.Fatalf("KeyOf(%q) ok = %t, want %t", tt.stream, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(sameAggregate)); diff != "" {
				t.Errorf("KeyOf(%q) (-want +got):\n%s", tt.stream, diff)
			}
			if ok && got.String() != tt.stream {
				t.Errorf("KeyOf(%q).String() = %q, want the stream back", tt.stream, got.String())
			}
		})
	}
}

// sameAggregate compares aggregates by identity, as keys do.
func sameAggregate(a, b *domain.Aggregate) bool { return a == b }

func TestAPassIsShownByItsName(t *testing.T) {
	k := reconcilers.Pass("monitor")
	if !k.IsPass() || k.String() != "monitor" {
		t.Errorf("Pass(monitor) = %+v (%s), want a pass shown as monitor", k, k)
	}
	if node := (reconcilers.Key{Aggregate: domain.NodeAggregate, Name: "monitor"}); node.IsPass() || node == k {
		t.Errorf("the node called monitor is the pass monitor")
	}
}

func TestAScopeTakesItsAggregatesAndPasses(t *testing.T) {
	scope := reconcilers.Scope{
		Aggregates: []*domain.Aggregate{domain.NodeAggregate, domain.PodAggregate},
		Passes:     []reconcilers.Key{reconcilers.Pass("all")},
	}
	tests := []struct {
		name string
		key  reconcilers.Key
		want bool
	}{
		{name: "node", key: reconcilers.Key{Aggregate: domain.NodeAggregate, Name: "a"}, want: true},
		{name: "pod", key: reconcilers.Key{Aggregate: domain.PodAggregate, Namespace: "default", Name: "p"}, want: true},
		{name: "its pass", key: reconcilers.Pass("all"), want: true},
		{name: "another pass", key: reconcilers.Pass("monitor")},
		{name: "another aggregate", key: reconcilers.Key{Aggregate: domain.NamespaceAggregate, Name: "default"}},
		{name: "a node without a name", key: reconcilers.Key{Aggregate: domain.NodeAggregate}},
		{name: "a node in a namespace", key: reconcilers.Key{Aggregate: domain.NodeAggregate, Namespace: "default", Name: "a"}},
		{name: "a pod without a namespace", key: reconcilers.Key{Aggregate: domain.PodAggregate, Name: "p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scope.Takes(tt.key); got != tt.want {
				t.Errorf("Takes(%s) = %t, want %t", tt.key, got, tt.want)
			}
		})
	}
}
