package projections

import (
	"reflect"
	"testing"
	"unsafe"

	"herd/domain"
)

// sameMap reports whether a and b are one map, not two equal ones.
func sameMap(a, b domain.ResourceList) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestNodesOfOneShapeShareTheirResourceLists: two nodes registered with
// equal capacities hold one map, as the unit of work decides them and as
// the watch hub folds them from the log; a node of another shape holds
// its own, and every node still has its own values.
func TestNodesOfOneShapeShareTheirResourceLists(t *testing.T) {
	w, store, clk := newWriter(t)
	a := do(t, w, clk, "shape-a", register("shape-a", domain.KindLinux))
	b := do(t, w, clk, "shape-b", register("shape-b", domain.KindLinux))
	other := register("shape-c", domain.KindLinux)
	other.Registration.Capacity = domain.ResourceList{"cpu": 2000, "memory": 4 << 30, "pods": 10}
	c := do(t, w, clk, "shape-c", other)
	if !sameMap(a.Capacity, b.Capacity) {
		t.Error("two nodes of one shape, as the unit of work decided them, hold two capacity maps")
	}
	if sameMap(a.Capacity, c.Capacity) || c.Capacity["cpu"] != 2000 || a.Capacity["cpu"] != 4000 {
		t.Errorf("nodes of two shapes: %v and %v", a.Capacity, c.Capacity)
	}
	fold := func(name string) domain.Node {
		recs, err := store.ReadStreamRange(t.Context(), store.DB(), domain.NodeStream(name), 0, 1<<62)
		if err != nil {
			t.Fatal(err)
		}
		var n domain.Node
		for _, rec := range recs {
			if n, err = FoldNode(n, rec); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	fa, fb := fold("shape-a"), fold("shape-b")
	if !sameMap(fa.Capacity, fb.Capacity) || !sameMap(fa.Capacity, a.Capacity) {
		t.Error("nodes of one shape folded from the log hold their own capacity maps")
	}
	if !reflect.DeepEqual(fa.Capacity, domain.ResourceList{"cpu": 4000, "memory": 8 << 30, "pods": 10}) {
		t.Errorf("folded capacity %v", fa.Capacity)
	}
}

// TestSharedResourceListsAreBounded: past its bound the table keeps no
// further shapes, and a list of a new shape is its own.
func TestSharedResourceListsAreBounded(t *testing.T) {
	tab := newResourceLists()
	for i := range maxSharedResourceLists {
		tab.share(domain.ResourceList{"cpu": int64(i)})
	}
	first := domain.ResourceList{"cpu": 0}
	if got := tab.share(first); sameMap(got, first) || got["cpu"] != 0 {
		t.Errorf("a kept shape: %v, its own map %v", got, sameMap(got, first))
	}
	late := domain.ResourceList{"cpu": -1}
	if got := tab.share(late); !sameMap(got, late) {
		t.Error("a shape past the bound was not its own")
	}
	if len(tab.m) != maxSharedResourceLists {
		t.Errorf("the table holds %d shapes, bound %d", len(tab.m), maxSharedResourceLists)
	}
	if got := tab.share(nil); got != nil {
		t.Errorf("an empty list came back as %v", got)
	}
}

// TestNodesReadFromTheViewShareTheirResourceLists: nodes decoded from
// their rows (what the watch hub starts from, and the reconcilers read)
// hold the one map of their shape too.
func TestNodesReadFromTheViewShareTheirResourceLists(t *testing.T) {
	w, store, clk := newWriter(t)
	do(t, w, clk, "row-a", register("row-a", domain.KindLinux))
	do(t, w, clk, "row-b", register("row-b", domain.KindLinux))
	do(t, w, clk, "row-a", metrics(500))
	list, _, err := NewNodeView(store.Log()).List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d nodes listed, want 2", len(list))
	}
	a, b := list[0], list[1]
	if !sameMap(a.Capacity, b.Capacity) || a.Capacity["memory"] != 8<<30 {
		t.Errorf("two nodes of one shape read from their rows: %v and %v, one map %v", a.Capacity, b.Capacity, sameMap(a.Capacity, b.Capacity))
	}
}

// TestResourceListsOfOtherContentNeverShare: lists whose names and
// values could run together as text are told apart.
func TestResourceListsOfOtherContentNeverShare(t *testing.T) {
	tab := newResourceLists()
	lists := []domain.ResourceList{
		{"a": 12},
		{"a1": 2},
		{"a\x001": 2},
		{"a": 1, "b": 2},
		{"a": 1, "\x00b": 2},
		{"a\x001\x00b": 2},
		{"a 1 1:b": 2},
	}
	for _, l := range lists {
		got := tab.share(l)
		if !reflect.DeepEqual(got, l) {
			t.Errorf("%v shared as %v", l, got)
		}
	}
}

// TestKubeletsShareTheirAnnotations: kubelets that set the same
// annotations hold one map of them, as the unit of work decides them and
// as they are folded from the log, until one sets its own; annotations
// whose text could run together are told apart.
func TestKubeletsShareTheirAnnotations(t *testing.T) {
	w, store, clk := newWriter(t)
	annotated := func(name string, annotations map[string]string) domain.RegisterNode {
		r := register(name, domain.KindLinux)
		r.Registration.Annotations = annotations
		return r
	}
	kubelet := func() map[string]string {
		return map[string]string{"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}
	}
	a := do(t, w, clk, "ann-a", annotated("ann-a", kubelet()))
	b := do(t, w, clk, "ann-b", annotated("ann-b", kubelet()))
	same := func(x, y map[string]string) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	if !same(a.Annotations, b.Annotations) {
		t.Error("two kubelets with one set of annotations hold two maps")
	}
	own := do(t, w, clk, "ann-b", domain.SetNodeLabels{Labels: b.Labels, Annotations: map[string]string{"owner": "ops"}})
	if same(own.Annotations, a.Annotations) || own.Annotations["owner"] != "ops" || a.Annotations["owner"] != "" {
		t.Errorf("annotations set apart: %v and %v", own.Annotations, a.Annotations)
	}
	recs, err := store.ReadStreamRange(t.Context(), store.DB(), domain.NodeStream("ann-a"), 0, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	var folded domain.Node
	for _, rec := range recs {
		if folded, err = FoldNode(folded, rec); err != nil {
			t.Fatal(err)
		}
	}
	if !same(folded.Annotations, a.Annotations) {
		t.Error("a kubelet's annotations folded from the log are a map of their own")
	}
	tab := sharedMaps[map[string]string, string]{m: map[string]map[string]string{}, value: sharedAnnotations.value}
	for _, m := range []map[string]string{{"a": "1b"}, {"a1": "b"}, {"a": "1", "b": ""}, {"a": "1 1:b"}} {
		if got := tab.share(m); !reflect.DeepEqual(got, m) {
			t.Errorf("%v shared as %v", m, got)
		}
	}
}

// TestNodesAndLeasesReadFromTheViewShareTheirRepeatedStrings: nodes and
// Leases decoded from their rows hold one copy of the strings a fleet
// repeats, as those folded from the log do.
func TestNodesAndLeasesReadFromTheViewShareTheirRepeatedStrings(t *testing.T) {
	w, store, clk := newWriter(t)
	for _, name := range []string{"str-a", "str-b"} {
		r := register(name, domain.KindLinux)
		r.Registration.Info = domain.NodeInfo{OSImage: "Ubuntu 24.04.1 LTS", AgentVersion: "v1.31.2"}
		do(t, w, clk, name, r)
		do(t, w, clk, name, domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue,
			Reason: "KubeletReady", Message: "kubelet is posting ready status"}}})
		if _, err := w.LeaseCommands().Execute(t.Context(), domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name},
			domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: domain.LeaseContent{
				Owners: []domain.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: "uid-" + name}}}}); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := NewNodeView(store.Log()).List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d nodes listed, want 2", len(list))
	}
	shared := func(what, x, y string) {
		t.Helper()
		if x == "" || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s %q read from two rows is held twice", what, x)
		}
	}
	a, b := list[0], list[1]
	shared("a label's value", a.Labels["zone"], b.Labels["zone"])
	shared("the OS image", a.Info.OSImage, b.Info.OSImage)
	ra, _ := a.Condition(domain.ConditionReady)
	rb, _ := b.Condition(domain.ConditionReady)
	shared("a condition's message", ra.Message, rb.Message)
	leases := NewLeaseView(store.Log())
	la, err := leases.Get(t.Context(), domain.NodeLeaseNamespace, "str-a")
	if err != nil {
		t.Fatal(err)
	}
	lb, err := leases.Get(t.Context(), domain.NodeLeaseNamespace, "str-b")
	if err != nil {
		t.Fatal(err)
	}
	shared("a Lease's namespace", la.Namespace, lb.Namespace)
	shared("a Lease owner's kind", la.Owners[0].Kind, lb.Owners[0].Kind)
}
