package garbagecollector

import (
	"slices"
	"testing"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// node registers a node and returns a reference to it, as a kubelet's
// lease names its node.
func (h *harness) node(name string) domain.OwnerReference {
	h.t.Helper()
	n := h.env.Node(name, domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: domain.KindLinux}})
	return domain.OwnerReference{APIVersion: "v1", Kind: "Node", Name: name, UID: n.UID}
}

// lease creates default/name owned by owner; judged says the runner
// reconciled its key after its creation, as it does unless the event was
// set aside.
func (h *harness) lease(name string, owner domain.OwnerReference, judged bool) {
	h.t.Helper()
	dependentKinds["Lease"].create(h, name, owner)
	if judged {
		h.judge(domain.LeaseAggregate, name)
	}
}

// judge reconciles the key of default/name of aggregate a.
func (h *harness) judge(a *domain.Aggregate, name string) {
	h.t.Helper()
	if _, err := h.r.Reconcile(h.t.Context(), reconcilers.Key{Aggregate: a, Namespace: "default", Name: name}); err != nil {
		h.t.Fatal(err)
	}
}

// lists is how many times the collector listed leases so far.
func (h *harness) lists() int64 { return h.leases.lists.Load() }

// indexed are the names of the index's leases of default, sorted.
func (h *harness) indexed() []string {
	var out []string
	for _, e := range h.r.index.entries("default") {
		out = append(out, e.d.name)
	}
	slices.Sort(out)
	return out
}

// TestAPassJudgesLeasesFromTheIndex: the first pass over a namespace
// lists its leases; later passes judge them from the index without
// listing them, and still delete a lease whose node went (no event of
// the namespace says so), one listed or one created since and judged on
// its own key, and keep the others. A lease's deletion takes it out of
// the index on its own key. Once the collector starts running again, the
// next pass lists them anew.
func TestAPassJudgesLeasesFromTheIndex(t *testing.T) {
	h := newHarness(t)
	a, b, c := h.node("a"), h.node("b"), h.node("c")
	h.lease("a", a, false)
	h.lease("b", b, false)
	h.reconcile()
	if got := h.lists(); got != 1 {
		t.Fatalf("the first pass listed leases %d times, want 1", got)
	}
	h.lease("c", c, true)
	h.reconcile()
	if got := h.lists(); got != 1 {
		t.Errorf("a later pass listed leases: %d lists, want 1", got)
	}
	if got, want := h.indexed(), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("the index holds %v, want %v", got, want)
	}
	h.env.Node("a", domain.DeleteNode{})
	h.env.Node("c", domain.DeleteNode{})
	h.reconcile()
	if dependentKinds["Lease"].exists(h, "a") || dependentKinds["Lease"].exists(h, "c") {
		t.Errorf("a lease whose node was deleted outlived it")
	}
	if !dependentKinds["Lease"].exists(h, "b") {
		t.Errorf("a lease whose node exists was deleted")
	}
	// The runner judges each deleted lease on its own key.
	h.judge(domain.LeaseAggregate, "a")
	h.judge(domain.LeaseAggregate, "c")
	if got, want := h.indexed(), []string{"b"}; !slices.Equal(got, want) {
		t.Errorf("after the pass the index holds %v, want %v", got, want)
	}
	if got := h.lists(); got != 1 {
		t.Errorf("the pass that collected leases listed them: %d lists, want 1", got)
	}

	// A lease deleted by someone else leaves the index on its own key.
	if _, err := h.env.Writer.LeaseCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: "b"}, domain.DeleteLease{}); err != nil {
		t.Fatal(err)
	}
	recs, err := h.env.Log.Query(t.Context(), events.Filter{Stream: domain.LeaseAggregate.Stream("default/b"), Types: []string{domain.LeaseDeleted{}.EventType()}})
	if err != nil || len(recs) != 1 {
		t.Fatalf("the lease's deletion: %v, %v", recs, err)
	}
	keys := h.r.Watches().KeysFor(recs[0])
	want := reconcilers.Key{Aggregate: domain.LeaseAggregate, Namespace: "default", Name: "b"}
	if !slices.Contains(keys, want) || !slices.Contains(keys, namespaceKey("default")) {
		t.Errorf("KeysFor(LeaseDeleted) = %v, want the lease's own key and its namespace", keys)
	}
	h.lease("d", c, true) // c's node is gone: judged on its key at once
	if dependentKinds["Lease"].exists(h, "d") {
		t.Errorf("a lease created naming a node already gone was kept")
	}
	h.judge(domain.LeaseAggregate, "b")
	h.judge(domain.LeaseAggregate, "d") // on its LeaseDeleted
	if got := h.indexed(); len(got) != 0 {
		t.Errorf("after the leases' deletion the index holds %v", got)
	}

	// Watches, asked above, is the collector starting to run.
	e := h.node("e")
	h.lease("e", e, false)
	h.reconcile()
	if got := h.lists(); got != 2 {
		t.Errorf("the first pass after the collector started again listed leases %d times in all, want 2", got)
	}
	if got, want := h.indexed(), []string{"e"}; !slices.Equal(got, want) {
		t.Errorf("after the pass the index holds %v, want %v", got, want)
	}
}

// TestTheIndexIsReadInFullNowAndThen: a lease the index missed (its
// creation's event set aside) is found by the full read that comes
// every fullReadEvery resyncs.
func TestTheIndexIsReadInFullNowAndThen(t *testing.T) {
	h := newHarness(t)
	if _, err := h.env.Writer.NamespaceCommands().Execute(t.Context(), domain.Key{Name: "default"}, domain.CreateNamespace{Meta: domain.ObjectMeta{Name: "default", UID: "uid-default"}}); err != nil {
		t.Fatal(err)
	}
	a := h.node("a")
	h.lease("a", a, false)
	h.reconcile()
	gone := h.node("gone")
	h.env.Node("gone", domain.DeleteNode{})
	h.lease("missed", gone, false)
	for i := range fullReadEvery {
		keys, err := h.r.Resync(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(keys, namespaceKey("default")) {
			t.Fatalf("the resync returned %v, want the namespace default among them", keys)
		}
		if i == fullReadEvery-1 {
			break
		}
		h.reconcile()
		if !dependentKinds["Lease"].exists(h, "missed") {
			t.Fatalf("after %d resyncs a pass that does not read the leases collected one the index lacks", i+1)
		}
	}
	before := h.lists()
	h.reconcile()
	if h.lists() != before+1 {
		t.Errorf("after %d resyncs the pass did not list the leases", fullReadEvery)
	}
	if dependentKinds["Lease"].exists(h, "missed") {
		t.Errorf("the full read kept a lease whose node is gone")
	}
	if !dependentKinds["Lease"].exists(h, "a") {
		t.Errorf("the full read deleted a lease whose node exists")
	}
}
