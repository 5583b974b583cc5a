package garbagecollector

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// harness is the collector on herd's own views and unit of work.
type harness struct {
	t   *testing.T
	env *reconcilerstest.Env
	r   *Reconciler
	cms *projections.ConfigMapView
	rss *projections.ReplicaSetView
	ds  *projections.DeploymentView
	// leases counts the collector's lists of leases.
	leases *countingLeases
}

// countingLeases is the lease view, counting its lists.
type countingLeases struct {
	*projections.LeaseView
	lists atomic.Int64
}

func (c *countingLeases) List(ctx context.Context, namespace string) ([]domain.Lease, int64, error) {
	c.lists.Add(1)
	return c.LeaseView.List(ctx, namespace)
}

func newHarness(t *testing.T) *harness {
	env := reconcilerstest.New(t)
	l := env.Log
	h := &harness{t: t, env: env, cms: projections.NewConfigMapView(l), rss: projections.NewReplicaSetView(l), ds: projections.NewDeploymentView(l),
		leases: &countingLeases{LeaseView: projections.NewLeaseView(l)}}
	nss := projections.NewNamespaceView(l)
	h.r = New(DefaultResyncPeriod, Readers{
		Pods: projections.NewPodView(l), ConfigMaps: h.cms, Leases: h.leases, ReplicaSets: h.rss,
		Deployments: h.ds, Jobs: projections.NewJobView(l), CronJobs: projections.NewCronJobView(l), StatefulSets: projections.NewStatefulSetView(l), DaemonSets: projections.NewDaemonSetView(l),
		PodDisruptionBudgets: projections.NewPodDisruptionBudgetView(l), ControllerRevisions: projections.NewControllerRevisionView(l), Nodes: projections.NewNodeView(l), Namespaces: nss,
	}, env.Writer, zap.NewNop())
	return h
}

func (h *harness) deployment(name, uid string) domain.OwnerReference {
	h.t.Helper()
	labels := map[string]string{"app": name}
	if _, err := h.env.Writer.DeploymentCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateDeployment{
		Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: uid},
		Spec: domain.DeploymentSpec{Selector: domain.LabelSelector{MatchLabels: labels},
			Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "i"}}}},
			Strategy: domain.DeploymentStrategy{Type: domain.RecreateStrategy}, RevisionHistoryLimit: 10, ProgressDeadlineSeconds: 600},
	}); err != nil {
		h.t.Fatal(err)
	}
	return domain.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: uid, BlockOwnerDeletion: true}
}

func (h *harness) deleteDeployment(name string, p domain.Propagation) {
	h.t.Helper()
	if _, err := h.env.Writer.DeploymentCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.DeleteDeployment{Propagation: p}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) configMap(name string, owners ...domain.OwnerReference) {
	h.t.Helper()
	if _, err := h.env.Writer.ConfigMapCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateConfigMap{
		Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: owners},
	}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) replicaSet(name string, owners ...domain.OwnerReference) domain.OwnerReference {
	h.t.Helper()
	labels := map[string]string{"ring": name}
	if _, err := h.env.Writer.ReplicaSetCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateReplicaSet{
		Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: owners},
		Spec: domain.ReplicaSetSpec{Selector: domain.LabelSelector{MatchLabels: labels},
			Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "i"}}}}},
	}); err != nil {
		h.t.Fatal(err)
	}
	return domain.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: "uid-" + name}
}

func (h *harness) reconcile() {
	h.t.Helper()
	if _, err := h.r.Reconcile(h.t.Context(), namespaceKey("default")); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) configMapOwners(name string) ([]domain.OwnerReference, bool) {
	h.t.Helper()
	cm, err := h.cms.Get(h.t.Context(), "default", name)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, false
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return cm.Owners, true
}

// TestObjectsGoWithTheirOwners: a ConfigMap whose one owner, a
// Deployment, is deleted goes; one with another owner that exists stays;
// one owned by a kind herd does not serve stays; one owned by a
// Deployment deleted orphaning it loses only its reference.
func TestObjectsGoWithTheirOwners(t *testing.T) {
	h := newHarness(t)
	web := h.deployment("web", "uid-web")
	keep := h.deployment("keep", "uid-keep")
	h.configMap("only-web", web)
	h.configMap("web-and-keep", web, keep)
	h.configMap("foreign", domain.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "uid-w"})
	h.configMap("wrong-uid", domain.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "keep", UID: "uid-an-older-keep"})
	h.reconcile()
	if _, ok := h.configMapOwners("only-web"); !ok {
		t.Fatalf("a ConfigMap whose owner exists was deleted")
	}
	if _, ok := h.configMapOwners("wrong-uid"); ok {
		t.Errorf("a ConfigMap naming another object of its owner's name (another uid) was kept")
	}
	h.deleteDeployment("web", domain.PropagateBackground)
	h.reconcile()
	if _, ok := h.configMapOwners("only-web"); ok {
		t.Errorf("a ConfigMap outlived its one owner")
	}
	if _, ok := h.configMapOwners("web-and-keep"); !ok {
		t.Errorf("a ConfigMap with an owner left was deleted")
	}
	if _, ok := h.configMapOwners("foreign"); !ok {
		t.Errorf("a ConfigMap owned by a kind herd does not serve was deleted")
	}

	h.deleteDeployment("keep", domain.PropagateOrphan)
	h.reconcile()
	owners, ok := h.configMapOwners("web-and-keep")
	if !ok || len(owners) != 1 || owners[0].UID != web.UID || !owners[0].BlockOwnerDeletion {
		t.Errorf("after its owner's orphaning deletion: exists %v, owners %+v; want only web's reference, blockOwnerDeletion kept", ok, owners)
	}
	h.reconcile()
	if _, ok := h.configMapOwners("web-and-keep"); ok {
		t.Errorf("released from keep, a ConfigMap whose other owner is gone was kept")
	}
}

// TestACycleOfOwnersIsCollected: two ReplicaSets that own each other go
// once one of them is deleted.
func TestACycleOfOwnersIsCollected(t *testing.T) {
	h := newHarness(t)
	a := h.replicaSet("ring-a")
	b := h.replicaSet("ring-b", a)
	owners := []domain.OwnerReference{b}
	rs, err := h.rss.Get(t.Context(), "default", "ring-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.env.Writer.ReplicaSetCommands().Execute(t.Context(), rs.Key(), domain.UpdateReplicaSet{
		Meta: domain.ObjectMeta{Labels: rs.Labels, Annotations: rs.Annotations, Owners: owners},
		Spec: rs.Spec,
	}); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	if _, err := h.rss.Get(t.Context(), "default", "ring-b"); err != nil {
		t.Fatalf("a ReplicaSet of a cycle went while every member exists: %v", err)
	}
	if _, err := h.env.Writer.ReplicaSetCommands().Execute(t.Context(), rs.Key(), domain.DeleteReplicaSet{}); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	if _, err := h.rss.Get(t.Context(), "default", "ring-b"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("ring-b outlived ring-a, its owner: %v", err)
	}
}

// TestForegroundDeletionWaitsForEveryBlockingDependent: a Deployment
// deleted in the foreground stays, being deleted, while ConfigMaps that
// name it with blockOwnerDeletion exist; the collector deletes those it
// alone owns, takes its reference off one another owner keeps, and
// deletes the Deployment once none names it any more.
func TestForegroundDeletionWaitsForEveryBlockingDependent(t *testing.T) {
	h := newHarness(t)
	web := h.deployment("web", "uid-web")
	keep := h.deployment("keep", "uid-keep")
	loose := web
	loose.BlockOwnerDeletion = false
	h.configMap("blocker", web)
	h.configMap("shared", web, keep)
	h.configMap("loose", loose)
	h.deleteDeployment("web", domain.PropagateForeground)
	d, err := h.ds.Get(t.Context(), "default", "web")
	if err != nil || d.DeletionRequestedAt == nil {
		t.Fatalf("web after its deletion in the foreground: %+v, %v; want it being deleted", d, err)
	}
	h.reconcile()
	if _, ok := h.configMapOwners("blocker"); ok {
		t.Errorf("a ConfigMap whose one owner is deleted in the foreground was kept")
	}
	if _, ok := h.configMapOwners("loose"); ok {
		t.Errorf("a ConfigMap that does not block its owner was kept: foreground deletion deletes every dependent")
	}
	if owners, ok := h.configMapOwners("shared"); !ok || len(owners) != 1 || owners[0].UID != keep.UID {
		t.Errorf("a ConfigMap another owner keeps: exists %v, owners %+v; want only keep's reference", ok, owners)
	}
	h.reconcile()
	if _, err := h.ds.Get(t.Context(), "default", "web"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("web stays, being deleted, once no dependent blocks it: %v", err)
	}
	if _, err := h.ds.Get(t.Context(), "default", "keep"); err != nil {
		t.Errorf("keep went: %v", err)
	}
}

// TestForegroundOwnerWaitsWhileABlockerExists: the collector never
// finishes an owner's deletion while a dependent names it with
// blockOwnerDeletion, however often it passes: here a pod a finalizer
// keeps, terminating.
func TestForegroundOwnerWaitsWhileABlockerExists(t *testing.T) {
	h := newHarness(t)
	web := h.deployment("web", "uid-web")
	if _, err := h.env.Writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: "held"}, domain.CreatePod{
		Namespace: "default", Name: "held", UID: "uid-held", Finalizers: []string{"example.com/hold"}, Owners: []domain.OwnerReference{web},
		Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "i"}}},
	}); err != nil {
		t.Fatal(err)
	}
	h.deleteDeployment("web", domain.PropagateForeground)
	for range 2 {
		h.reconcile()
		if _, err := h.ds.Get(t.Context(), "default", "web"); err != nil {
			t.Fatalf("web went while its pod, which blocks it, exists: %v", err)
		}
	}
	p, err := h.env.Writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: "held"}, domain.IfSamePod{UID: "uid-held", Command: domain.DeletePod{}})
	if err != nil || !p.Terminating() {
		t.Errorf("the pod of web, deleted in the foreground: %+v, %v; want it terminating", p, err)
	}
}

// TestADependentIsJudgedAlone: a ConfigMap created naming an owner that
// is gone is judged on its own key, not its namespace's (a fleet's node
// leases share one namespace by the hundred thousand): it goes, and
// another such ConfigMap of the namespace waits for its own turn or the
// resync; an owner's deletion judges the namespace.
func TestADependentIsJudgedAlone(t *testing.T) {
	h := newHarness(t)
	gone := domain.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "gone", UID: "uid-gone"}
	h.configMap("mine", gone)
	h.configMap("other", gone)
	recs, err := h.env.Log.Query(t.Context(), events.Filter{Stream: domain.ConfigMapAggregate.Stream("default/mine")})
	if err != nil || len(recs) != 1 {
		t.Fatalf("the ConfigMap's events: %v, %v; want its creation", recs, err)
	}
	keys := h.r.Watches().KeysFor(recs[0])
	want := reconcilers.Key{Aggregate: domain.ConfigMapAggregate, Namespace: "default", Name: "mine"}
	if len(keys) != 1 || keys[0] != want {
		t.Fatalf("KeysFor(%s) = %v, want the ConfigMap's own key %v", recs[0].Type, keys, want)
	}
	if !h.r.Watches().Scope().Takes(want) {
		t.Fatalf("the collector's scope does not take %v", want)
	}
	if _, err := h.r.Reconcile(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.configMapOwners("mine"); ok {
		t.Errorf("the ConfigMap whose owner is gone was kept")
	}
	if _, ok := h.configMapOwners("other"); !ok {
		t.Errorf("judging one ConfigMap deleted another of its namespace")
	}

	h.deployment("web", "uid-web")
	h.deleteDeployment("web", domain.PropagateBackground)
	recs, err = h.env.Log.Query(t.Context(), events.Filter{Stream: domain.DeploymentAggregate.Stream("default/web"), Types: []string{domain.DeploymentDeleted{}.EventType()}})
	if err != nil || len(recs) != 1 {
		t.Fatalf("the Deployment's deletion: %v, %v", recs, err)
	}
	if keys := h.r.Watches().KeysFor(recs[0]); len(keys) != 1 || keys[0] != namespaceKey("default") {
		t.Errorf("KeysFor(DeploymentDeleted) = %v, want the namespace", keys)
	}
	h.reconcile()
	if _, ok := h.configMapOwners("other"); ok {
		t.Errorf("the namespace's pass kept a ConfigMap whose owner is gone")
	}
}

// TestAConfigMapGivenAnOwnerByItsMetadataIsJudged: a ConfigMap updated
// to name an owner that is gone, its data as it was, records
// ConfigMapMetadataChanged; that is an owner change the collector judges
// the ConfigMap on at once, as it does one created naming the owner.
func TestAConfigMapGivenAnOwnerByItsMetadataIsJudged(t *testing.T) {
	h := newHarness(t)
	h.configMap("mine")
	gone := domain.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "gone", UID: "uid-gone"}
	key := domain.Key{Namespace: "default", Name: "mine"}
	if _, err := h.env.Writer.ConfigMapCommands().Execute(t.Context(), key, domain.UpdateConfigMap{
		Meta: domain.ObjectMeta{Owners: []domain.OwnerReference{gone}},
	}); err != nil {
		t.Fatal(err)
	}
	recs, err := h.env.Log.Query(t.Context(), events.Filter{Stream: domain.ConfigMapAggregate.Stream("default/mine")})
	if err != nil || len(recs) != 2 || recs[1].Type != (domain.ConfigMapMetadataChanged{}).EventType() {
		t.Fatalf("the ConfigMap's events: %v, %v; want its creation and ConfigMapMetadataChanged", recs, err)
	}
	want := reconcilers.Key{Aggregate: domain.ConfigMapAggregate, Namespace: "default", Name: "mine"}
	if keys := h.r.Watches().KeysFor(recs[1]); len(keys) != 1 || keys[0] != want {
		t.Fatalf("KeysFor(%s) = %v, want the ConfigMap's own key %v", recs[1].Type, keys, want)
	}
	if _, err := h.r.Reconcile(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.configMapOwners("mine"); ok {
		t.Errorf("the ConfigMap whose owner, set by its metadata, is gone was kept")
	}
}
