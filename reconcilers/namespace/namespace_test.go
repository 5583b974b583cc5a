package namespace

import (
	"errors"
	"slices"
	"testing"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

type fixture struct {
	*reconcilerstest.Env
	r          *Reconciler
	namespaces *projections.NamespaceView
	configMaps *projections.ConfigMapView
	leases     *projections.LeaseView
}

func newFixture(t *testing.T) *fixture {
	env := reconcilerstest.New(t)
	f := &fixture{Env: env, namespaces: projections.NewNamespaceView(env.Store.Log()), configMaps: projections.NewConfigMapView(env.Store.Log()),
		leases: projections.NewLeaseView(env.Store.Log())}
	f.r = New(DefaultResyncPeriod, env.Writer, f.namespaces, env.Pods, f.configMaps, f.leases, env.Clock, zap.NewNop())
	return f
}

func (f *fixture) namespace(t *testing.T, name string, cmd domain.NamespaceCommand) {
	t.Helper()
	if _, err := f.Writer.NamespaceCommands().Execute(t.Context(), domain.Key{Name: name}, cmd); err != nil {
		t.Fatalf("namespace %s: %v", name, err)
	}
}

func (f *fixture) pod(t *testing.T, ns, name, node string, cmds ...domain.PodCommand) {
	t.Helper()
	grace := int64(30)
	create := domain.CreatePod{Namespace: ns, Name: name, UID: "uid-" + name, TerminationGracePeriodSeconds: &grace,
		Spec: domain.PodSpec{NodeName: node, Containers: []domain.Container{{Name: "app", Image: "busybox"}}}}
	if _, err := f.Writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: ns, Name: name}, append(domain.PodSequence{create}, cmds...)); err != nil {
		t.Fatalf("pod %s/%s: %v", ns, name, err)
	}
}

func (f *fixture) reconcile(t *testing.T, name string) {
	t.Helper()
	if _, err := f.r.Reconcile(t.Context(), reconcilerstest.NamespaceKey(name)); err != nil {
		t.Fatalf("reconcile %s: %v", name, err)
	}
}

// TestDeletingANamespaceEmptiesItThenRemovesIt: the pods get their grace
// period and the ConfigMaps go; the namespace stays Terminating while a
// pod terminates, and goes with the last one. Another namespace is left
// alone.
func TestDeletingANamespaceEmptiesItThenRemovesIt(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.ReadyNode("n1", nil)
	f.namespace(t, "shop", domain.CreateNamespace{Meta: domain.ObjectMeta{Name: "shop"}})
	f.namespace(t, "lab", domain.CreateNamespace{Meta: domain.ObjectMeta{Name: "lab"}})
	f.pod(t, "shop", "web", "n1")
	f.pod(t, "shop", "queued", "")
	f.pod(t, "lab", "keep", "n1")
	for _, ns := range []string{"shop", "lab"} {
		if _, err := f.Writer.ConfigMapCommands().Execute(ctx, domain.Key{Namespace: ns, Name: "settings"},
			domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: ns, Name: "settings"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Writer.LeaseCommands().Execute(ctx, domain.Key{Namespace: ns, Name: "leader"}, domain.CreateLease{Namespace: ns, Name: "leader"}); err != nil {
			t.Fatal(err)
		}
	}

	f.reconcile(t, "shop") // Active: nothing to do
	if pods, _, _ := f.Pods.List(ctx, projections.PodFilter{Namespace: "shop", Terminating: true}); len(pods) != 0 {
		t.Fatalf("an Active namespace's pods are being deleted: %v", pods)
	}

	f.SetTime(10)
	f.namespace(t, "shop", domain.DeleteNamespace{})
	f.reconcile(t, "shop")
	web, err := f.Pods.Get(ctx, "shop", "web")
	if err != nil || !web.Terminating() || !web.Deletion.Deadline.Equal(reconcilerstest.At(40)) {
		t.Fatalf("shop/web: %+v, %v; want it terminating with its 30 s grace period", web.Deletion, err)
	}
	if _, err := f.Pods.Get(ctx, "shop", "queued"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("shop/queued, never scheduled, is still there: %v", err)
	}
	if cms, _, _ := f.configMaps.List(ctx, "shop"); len(cms) != 0 {
		t.Errorf("shop's ConfigMaps left: %v", cms)
	}
	if ls, _, _ := f.leases.List(ctx, "shop"); len(ls) != 0 {
		t.Errorf("shop's leases left: %v", ls)
	}
	if ns, err := f.namespaces.Get(ctx, "shop"); err != nil || domain.NamespacePhase(ns) != domain.PhaseTerminating {
		t.Fatalf("shop while web terminates: %+v, %v; want Terminating", ns, err)
	}

	// web's termination ends: its finalization wakes the namespace.
	f.SetTime(40)
	head := f.Head()
	if _, err := f.Writer.PodCommands().Execute(ctx, domain.Key{Namespace: "shop", Name: "web"}, domain.FinalizePod{Reason: "Terminated"}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, rec := range f.Records(head) {
		keys = append(keys, reconcilerstest.Strings(f.r.Watches().KeysFor(rec))...)
	}
	if !slices.Equal(keys, []string{"namespace/shop"}) {
		t.Fatalf("keys for web's finalization %q, want namespace/shop", keys)
	}
	f.reconcile(t, "shop")
	if _, err := f.namespaces.Get(ctx, "shop"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("shop after its last pod went: %v, want it gone", err)
	}
	if got := f.StreamTypes(domain.NamespaceStream("shop")); !slices.Equal(got, []string{"NamespaceCreated", "NamespaceTerminating", "NamespaceDeleted"}) {
		t.Errorf("shop's events %q", got)
	}

	// lab is untouched, and reconciling a gone namespace is harmless.
	if p, err := f.Pods.Get(ctx, "lab", "keep"); err != nil || p.Terminating() {
		t.Errorf("lab/keep: %+v, %v", p.Deletion, err)
	}
	if cms, _, _ := f.configMaps.List(ctx, "lab"); len(cms) != 1 {
		t.Errorf("lab's ConfigMaps: %v", cms)
	}
	if ls, _, _ := f.leases.List(ctx, "lab"); len(ls) != 1 {
		t.Errorf("lab's leases: %v", ls)
	}
	head = f.Head()
	f.reconcile(t, "shop")
	if f.Head() != head {
		t.Error("reconciling a gone namespace appended")
	}
}

func TestResyncFindsTerminatingNamespaces(t *testing.T) {
	f := newFixture(t)
	f.namespace(t, "shop", domain.CreateNamespace{Meta: domain.ObjectMeta{Name: "shop"}})
	f.namespace(t, "lab", domain.CreateNamespace{Meta: domain.ObjectMeta{Name: "lab"}})
	f.pod(t, "shop", "web", "")
	f.namespace(t, "shop", domain.DeleteNamespace{})
	keys, err := f.r.Resync(t.Context())
	if err != nil || !slices.Equal(reconcilerstest.Strings(keys), []string{"namespace/shop"}) {
		t.Errorf("resync %q, %v; want namespace/shop", keys, err)
	}
	if got := reconcilerstest.Strings(f.r.Watches().KeysFor(events.Record{Stream: "configmap/lab/settings", Type: "ConfigMapDeleted"})); !slices.Equal(got, []string{"namespace/lab"}) {
		t.Errorf("keys of a ConfigMap deletion %q", got)
	}
}
