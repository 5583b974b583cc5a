package ipam

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is one test's log, views, clock and reconciler.
type fixture struct {
	t     *testing.T
	store *events.Store
	w     *projections.Writer
	pods  *projections.PodView
	view  *projections.IPAMView
	clock *clocktesting.FakeClock
	r     *Reconciler
}

func newFixture(t *testing.T, pools ...string) *fixture {
	t.Helper()
	store, err := events.Open(t.Context(), events.Config{
		Path: filepath.Join(t.TempDir(), "herd.db"),
		// Short, so that a test running the manager sees events quickly;
		// watermill polls on the wall clock.
		PollInterval: 5 * time.Millisecond,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if err := projections.Migrate(t.Context(), store.Log()); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, store: store, clock: clocktesting.NewFakeClock(t0),
		pods: projections.NewPodView(store.Log()), view: projections.NewIPAMView(store.Log())}
	f.w = projections.NewWriter(store.Log(), f.clock, nil)
	cfg := DefaultConfig()
	cfg.Pools = pools
	f.r, err = New(cfg, f.w, f.pods, f.view, f.clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// pod runs a command on default/name.
func (f *fixture) pod(name string, cmd domain.PodCommand) domain.Pod {
	f.t.Helper()
	p, err := f.w.PodCommands().Execute(f.t.Context(), domain.Key{Namespace: "default", Name: name}, cmd)
	if err != nil {
		f.t.Fatalf("%T on %s: %v", cmd, name, err)
	}
	return p
}

// create makes a pod, bound to n1 unless unbound, a second later than the
// last, so that "oldest first" has an order to follow.
func (f *fixture) create(name string, bound bool) domain.Pod {
	f.t.Helper()
	f.clock.Step(time.Second)
	spec := domain.PodSpec{Containers: []domain.Container{{Name: "c"}}}
	if bound {
		spec.NodeName = "n1"
	}
	return f.pod(name, domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, Spec: spec})
}

// finalize deletes a pod and finalizes it, as the termination reconciler
// would once its runtime let go of it.
func (f *fixture) finalize(name string) {
	f.t.Helper()
	f.pod(name, domain.DeletePod{GracePeriodSeconds: new(int64)})
	if p, _ := f.pods.Get(f.t.Context(), "default", name); p.Exists() {
		f.pod(name, domain.FinalizePod{Reason: "Terminated"})
	}
}

func (f *fixture) reconcile(key reconcilers.Key) {
	f.t.Helper()
	if _, err := f.r.Reconcile(f.t.Context(), key); err != nil {
		f.t.Fatalf("reconcile %s: %v", key, err)
	}
}

func (f *fixture) get(name string) domain.Pod {
	f.t.Helper()
	p, err := f.pods.Get(f.t.Context(), "default", name)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// addresses is every address in use, by pod name.
func (f *fixture) addresses() map[string]string {
	f.t.Helper()
	all, err := f.view.Allocations(f.t.Context())
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range all {
		out[a.Name] = a.Address
	}
	return out
}

// wantPoolEvents fails the test unless the pool's stream holds events of
// the types want, in order.
func (f *fixture) wantPoolEvents(pool string, want ...string) {
	f.t.Helper()
	recs, err := f.store.ReadStream(f.t.Context(), f.store.DB(), domain.IPPoolStream(pool), 0)
	if err != nil {
		f.t.Fatal(err)
	}
	var types []string
	for _, r := range recs {
		types = append(types, r.Type)
	}
	if diff := cmp.Diff(want, types); diff != "" {
		f.t.Errorf("pool stream (-want +got):\n%s", diff)
	}
}

func (f *fixture) head() int64 {
	h, _ := f.store.Head(context.Background(), f.store.DB())
	return h
}

func TestScheduledPodGetsTheLowestFreeAddress(t *testing.T) {
	f := newFixture(t, "10.88.0.0/24")
	f.create("a", true)
	f.create("b", true)
	f.create("unbound", false)
	for _, name := range []string{"a", "b", "unbound"} {
		f.reconcile(reconcilerstest.PodKey(name))
	}
	if diff := cmp.Diff(map[string]string{"a": "10.88.0.2", "b": "10.88.0.3"}, f.addresses()); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	a := f.get("a")
	want := &domain.PodNetwork{Pool: "10.88.0.0/24", IP: "10.88.0.2", PrefixLength: 24, Gateway: "10.88.0.1"}
	if diff := cmp.Diff(want, a.Network); diff != "" || a.Status.PodIP != "10.88.0.2" {
		t.Errorf("pod a network (-want +got):\n%s podIP %q", diff, a.Status.PodIP)
	}
	if f.get("unbound").Network != nil {
		t.Error("an unbound pod got an address")
	}
	// Reconciling again (at-least-once delivery, a resync) changes nothing.
	before := f.head()
	f.reconcile(reconcilerstest.PodKey("a"))
	f.reconcile(keyWaiting)
	f.reconcile(keyCollect)
	if after := f.head(); after != before {
		t.Errorf("a second pass appended %d events", after-before)
	}
}

func TestFinalizedPodReleasesItsAddressForTheNext(t *testing.T) {
	f := newFixture(t, "10.88.0.0/24")
	f.create("a", true)
	f.create("b", true)
	f.reconcile(reconcilerstest.PodKey("a"))
	f.reconcile(reconcilerstest.PodKey("b"))
	f.finalize("a")
	f.reconcile(reconcilerstest.PodKey("a"))
	f.create("c", true)
	f.reconcile(reconcilerstest.PodKey("c"))
	if diff := cmp.Diff(map[string]string{"b": "10.88.0.3", "c": "10.88.0.2"}, f.addresses()); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	f.wantPoolEvents("10.88.0.0/24", "IPAllocated", "IPAllocated", "IPReleased", "IPAllocated")
}

func TestExhaustedPoolLeavesPodPendingUntilAnAddressFrees(t *testing.T) {
	f := newFixture(t, "10.88.0.0/30")
	f.create("a", true)
	f.create("b", true)
	f.create("c", true)
	for _, name := range []string{"a", "b", "c"} {
		f.reconcile(reconcilerstest.PodKey(name))
	}
	const msg = "IP pool 10.88.0.0/30 exhausted: 1 of 1 addresses in use"
	for _, name := range []string{"b", "c"} {
		p := f.get(name)
		c, _ := p.Condition(domain.PodConditionIPAllocated)
		if p.Network != nil || p.Status.Phase != domain.PodPending || c.Status != domain.ConditionFalse || c.Message != msg {
			t.Errorf("pod %s: network %v phase %s condition %+v, want Pending with %q", name, p.Network, p.Status.Phase, c, msg)
		}
	}
	// Retrying while the pool is full appends nothing.
	before := f.head()
	f.reconcile(keyWaiting)
	if after := f.head(); after != before {
		t.Errorf("retrying a full pool appended %d events", after-before)
	}
	f.finalize("a")
	f.reconcile(reconcilerstest.PodKey("a"))
	f.reconcile(keyWaiting) // what the IPReleased event enqueues
	if diff := cmp.Diff(map[string]string{"b": "10.88.0.2"}, f.addresses()); diff != "" {
		t.Errorf("the pod that waited longest gets the freed address (-want +got):\n%s", diff)
	}
	if c, _ := f.get("b").Condition(domain.PodConditionIPAllocated); c.Status != domain.ConditionTrue {
		t.Errorf("b's condition %+v, want True", c)
	}
}

func TestSecondPoolServesWhenTheFirstIsFull(t *testing.T) {
	f := newFixture(t, "10.88.0.0/30", "10.89.0.0/30")
	for _, name := range []string{"a", "b", "c"} {
		f.create(name, true)
		f.reconcile(reconcilerstest.PodKey(name))
	}
	if diff := cmp.Diff(map[string]string{"a": "10.88.0.2", "b": "10.89.0.2"}, f.addresses()); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	c, _ := f.get("c").Condition(domain.PodConditionIPAllocated)
	want := "IP pool 10.88.0.0/30 exhausted: 1 of 1 addresses in use; IP pool 10.89.0.0/30 exhausted: 1 of 1 addresses in use"
	if c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	if nw := f.get("b").Network; nw == nil || nw.Gateway != "10.89.0.1" || nw.PrefixLength != 30 {
		t.Errorf("b's network %+v, want the second pool's gateway and prefix", nw)
	}
}

// TestCrashBetweenAllocationAndAssignment resumes with the address already
// held, and the sweep frees an address whose pod went in between.
func TestCrashBetweenAllocationAndAssignment(t *testing.T) {
	f := newFixture(t, "10.88.0.0/24")
	f.create("a", true)
	f.create("gone", true)
	// An allocator that allocated and then died before assigning.
	for _, name := range []string{"a", "gone"} {
		if _, err := f.w.IPPoolCommands().Execute(t.Context(), domain.Key{Name: "10.88.0.0/24"},
			domain.AllocateIP{PodUID: "uid-" + name, Namespace: "default", Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	f.finalize("gone")
	f.reconcile(keyCollect)
	f.reconcile(reconcilerstest.PodKey("a"))
	if diff := cmp.Diff(map[string]string{"a": "10.88.0.2"}, f.addresses()); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	if nw := f.get("a").Network; nw == nil || nw.IP != "10.88.0.2" {
		t.Errorf("a's network %+v, want the address it already held", nw)
	}
}

func TestAddressOfAReplacedPodIsCollected(t *testing.T) {
	f := newFixture(t, "10.88.0.0/24")
	f.create("a", true)
	f.reconcile(reconcilerstest.PodKey("a"))
	// The pod goes and another of the same name comes, with no event for
	// the first one's finalization ever handled.
	f.finalize("a")
	f.clock.Step(time.Second)
	f.pod("a", domain.CreatePod{Namespace: "default", Name: "a", UID: "uid-a2",
		Spec: domain.PodSpec{NodeName: "n1", Containers: []domain.Container{{Name: "c"}}}})
	// Nor the new one's name: the sweep alone finds the address.
	f.reconcile(keyCollect)
	if all, _ := f.view.Allocations(t.Context()); len(all) != 0 {
		t.Errorf("allocations after the sweep: %+v, want none", all)
	}
}

// TestAPodMadeAgainUnderItsNameFreesTheAddressOfTheOneBefore: a
// StatefulSet makes its pod again under the same name before the first
// one's end is reconciled; reconciling the name gives the old address
// back at once rather than at the sweep: in a pool of one address the
// new pod gets it.
func TestAPodMadeAgainUnderItsNameFreesTheAddressOfTheOneBefore(t *testing.T) {
	f := newFixture(t, "10.88.0.0/30") // one address to hand out: .2
	f.create("web-0", true)
	f.reconcile(reconcilerstest.PodKey("web-0"))
	f.finalize("web-0")
	f.clock.Step(time.Second)
	f.pod("web-0", domain.CreatePod{Namespace: "default", Name: "web-0", UID: "uid-web-0-again",
		Spec: domain.PodSpec{NodeName: "n1", Containers: []domain.Container{{Name: "c"}}}})
	f.reconcile(reconcilerstest.PodKey("web-0"))
	all, err := f.view.Allocations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range all {
		got = append(got, fmt.Sprintf("%s=%s", a.PodUID, a.Address))
	}
	if diff := cmp.Diff([]string{"uid-web-0-again=10.88.0.2"}, got); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
	if p := f.get("web-0"); p.Network == nil || p.Network.IP != "10.88.0.2" {
		t.Errorf("the new pod's network: %+v, want 10.88.0.2", p.Network)
	}
	f.wantPoolEvents("10.88.0.0/30", "IPAllocated", "IPReleased", "IPAllocated")
}

func TestTerminatingPodGetsNoAddress(t *testing.T) {
	f := newFixture(t, "10.88.0.0/24")
	f.create("a", true)
	f.pod("a", domain.DeletePod{})
	f.reconcile(reconcilerstest.PodKey("a"))
	if got := f.addresses(); len(got) != 0 {
		t.Errorf("addresses %v, want none for a pod being deleted", got)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name  string
		pools []string
		want  string
	}{
		{"none", nil, "want at least one pool"},
		{"overlap", []string{"10.88.0.0/16", "10.88.4.0/24"}, "10.88.4.0/24 overlaps 10.88.0.0/16"},
		{"too small", []string{"10.88.0.0/31"}, "too small"},
		{"host bits", []string{"10.88.0.7/24"}, "the network is 10.88.0.0/24"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Pools = tt.pools
			_, err := cfg.Validate()
			if err == nil || !contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
