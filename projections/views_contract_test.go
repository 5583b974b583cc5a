package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections/viewstore"
)

// The views' contract: what every engine behind the storage port must do
// for the views, run unchanged against SQLite and PostgreSQL. A fleet is
// written through the unit of work; then every view reads back what was
// written (read-your-writes) at the log's head (a list's resourceVersion),
// pages through its rows in byte order, answers the node queries that
// look into a node's data, and a rebuild from the log gives the same
// answers as the views kept inline.

func TestViewsContractSQLite(t *testing.T) {
	runViewsContract(t, func(t *testing.T) events.Log {
		store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		return store.Log()
	})
}

func TestViewsContractPostgres(t *testing.T) {
	runViewsContract(t, func(t *testing.T) events.Log {
		log := eventstest.OpenPostgres(t, pgtest.URL(t))
		return log
	})
}

func runViewsContract(t *testing.T, open func(t *testing.T) events.Log) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, f *contractFleet)
	}{
		{"ReadYourWrites", contractReadYourWrites},
		{"ListsAtTheHead", contractListsAtTheHead},
		{"PagesInByteOrder", contractPagesInByteOrder},
		{"NodeQueries", contractNodeQueries},
		{"EveryOtherQuery", contractEveryOtherQuery},
		{"RebuildEqualsLive", contractRebuildEqualsLive},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := open(t)
			if err := Migrate(t.Context(), log); err != nil {
				t.Fatal(err)
			}
			c.run(t, writeContractFleet(t, log))
		})
	}
}

// contractFleet is a small fleet of every aggregate the views hold,
// written through the unit of work, with what each write answered.
type contractFleet struct {
	log   events.Log
	w     *Writer
	clk   *clocktesting.FakeClock
	nodes map[string]domain.Node
	pods  map[string]domain.Pod
	// replicaSet is shop/web as its last write left it.
	replicaSet domain.ReplicaSet
	// budget is the PodDisruptionBudget shop/web as its last write left it.
	budget domain.PodDisruptionBudget
	// job is shop/pi as its last write left it.
	job domain.Job
}

// contractNodeNames sort differently in byte order ("-" < "." < digits <
// letters) than in most locales' collations, which ignore punctuation.
var contractNodeNames = []string{"a-1", "a.0", "a0", "b", "drained", "draining", "gone", "no-execute", "pico-1"}

func writeContractFleet(t *testing.T, log events.Log) *contractFleet {
	t.Helper()
	ctx := t.Context()
	clk := clocktesting.NewFakeClock(t0)
	f := &contractFleet{log: log, w: NewWriter(log, clk, nil), clk: clk, nodes: map[string]domain.Node{}, pods: map[string]domain.Pod{}}
	node := func(name string, cmd domain.NodeCommand) {
		t.Helper()
		n, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: name}, cmd)
		if err != nil {
			t.Fatalf("%T on %s: %v", cmd, name, err)
		}
		f.nodes[name] = n
	}
	for _, name := range contractNodeNames {
		kind := domain.KindLinux
		if name == "pico-1" {
			kind = domain.KindRP2040
		}
		node(name, register(name, kind))
	}
	clk.Step(time.Second)
	node("a0", metrics(600))
	node("b", domain.SetNodeSchedulable{Unschedulable: true})
	node("draining", domain.DrainNode{})
	node("drained", domain.DrainNode{})
	node("drained", domain.MarkNodeDrained{})
	node("no-execute", domain.TaintNode{Taint: domain.Taint{Key: "example.com/gpu", Effect: domain.EffectNoExecute}})
	node("gone", domain.DeleteNode{})

	pod := func(ns, name, nodeName string) {
		t.Helper()
		var owners []domain.OwnerReference
		if strings.HasPrefix(name, "web") { // web's pods have a controller
			owners = []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "uid-rs-web", Controller: true}}
		}
		p, err := f.w.PodCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name},
			domain.CreatePod{Namespace: ns, Name: name, UID: "uid-" + ns + "-" + name, Owners: owners, Spec: domain.PodSpec{NodeName: nodeName, Containers: []domain.Container{{Name: "c"}}}})
		if err != nil {
			t.Fatalf("pod %s/%s: %v", ns, name, err)
		}
		f.pods[p.Key()] = p
	}
	pod("default", "web-a", "a0")
	pod("default", "web.b", "a0")
	pod("shop", "cart", "b")
	pod("shop", "queue", "")

	for _, ns := range []string{"default", "shop"} {
		if _, err := f.w.NamespaceCommands().Execute(ctx, domain.Key{Name: ns}, domain.CreateNamespace{Meta: domain.ObjectMeta{Name: ns, UID: "uid-" + ns}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.w.ConfigMapCommands().Execute(ctx, domain.Key{Namespace: "shop", Name: "settings"},
		domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: "shop", Name: "settings"}, Spec: domain.ConfigMapSpec{Data: map[string]string{"k": "v"}}}); err != nil {
		t.Fatal(err)
	}
	rs := f.w.ReplicaSetCommands()
	for _, name := range []string{"web", "old"} {
		if _, err := rs.Execute(ctx, domain.Key{Namespace: "shop", Name: name}, contractReplicaSet(name)); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if f.replicaSet, err = rs.Execute(ctx, domain.Key{Namespace: "shop", Name: "web"}, domain.ScaleReplicaSet{Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Execute(ctx, domain.Key{Namespace: "shop", Name: "old"}, domain.DeleteReplicaSet{}); err != nil {
		t.Fatal(err)
	}
	if f.budget, err = f.w.PodDisruptionBudgetCommands().Execute(ctx, domain.Key{Namespace: "shop", Name: "web"}, domain.CreatePodDisruptionBudget{
		Meta: domain.ObjectMeta{Namespace: "shop", Name: "web", UID: "uid-pdb-web"},
		Spec: domain.PodDisruptionBudgetSpec{
			MinAvailable: &domain.IntOrPercent{Value: 50, Percent: true}, Selector: &domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if f.job, err = contractJob(ctx, f.w); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a0", "b"} {
		if _, err := f.w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name},
			domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: leaseContent(name, clk.Now())}); err != nil {
			t.Fatal(err)
		}
	}
	for _, uid := range []string{"u1", "u2"} {
		if _, err := f.w.IPPoolCommands().Execute(ctx, domain.Key{Name: "10.88.0.0/24"}, allocCmd(uid)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := setTargets(t, f.w, domain.SetKubeletTarget{Target: target("k8s-02", "http://127.0.0.1:10256")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.w.DeviceBindingCommands().Execute(ctx, domain.Key{Name: "pico-1"}, domain.BindDevice{Name: "pico-1", Address: "127.0.0.7"}); err != nil {
		t.Fatal(err)
	}
	return f
}

// contractReplicaSet creates a ReplicaSet of one pod in shop, controlled
// by a Deployment of its name.
func contractReplicaSet(name string) domain.CreateReplicaSet {
	labels := map[string]string{"app": name}
	owners := []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: "uid-d-" + name, Controller: true}}
	return domain.CreateReplicaSet{
		Meta: domain.ObjectMeta{Namespace: "shop", Name: name, UID: "uid-rs-" + name, Owners: owners},
		Spec: domain.ReplicaSetSpec{
			Replicas: 1, Selector: domain.LabelSelector{MatchLabels: labels},
			Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "nginx"}}}},
		},
	}
}

// contractJob creates shop/pi and shop/gone, counts a pod of pi and
// deletes gone; it returns pi as its last write left it.
func contractJob(ctx context.Context, w *Writer) (domain.Job, error) {
	jobs := w.JobCommands()
	for _, name := range []string{"pi", "gone"} {
		if _, err := jobs.Execute(ctx, domain.Key{Namespace: "shop", Name: name}, domain.CreateJob{
			Meta: domain.ObjectMeta{Namespace: "shop", Name: name, UID: "uid-job-" + name},
			Spec: domain.JobSpec{Parallelism: 1, BackoffLimit: 6, Template: domain.PodTemplate{
				Spec: domain.PodSpec{RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "c", Image: "perl"}}}}},
		}); err != nil {
			return domain.Job{}, err
		}
	}
	if _, err := jobs.Execute(ctx, domain.Key{Namespace: "shop", Name: "gone"}, domain.DeleteJob{}); err != nil {
		return domain.Job{}, err
	}
	return jobs.Execute(ctx, domain.Key{Namespace: "shop", Name: "pi"}, domain.CountJobPods{Succeeded: []string{"uid-pod"}})
}

func contractReadYourWrites(t *testing.T, f *contractFleet) {
	ctx := t.Context()
	nodes := NewNodeView(f.log)
	for name, want := range f.nodes {
		got, err := nodes.GetIncludingDeleted(ctx, name)
		if err != nil {
			t.Fatalf("node %s: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("node %s as written and as read (-written +read):\n%s", name, diff)
		}
	}
	if _, err := nodes.Get(ctx, "gone"); err == nil {
		t.Error("a deleted node reads back")
	}
	pods := NewPodView(f.log)
	for key, want := range f.pods {
		got, err := pods.Get(ctx, want.Namespace, want.Name)
		if err != nil {
			t.Fatalf("pod %s: %v", key, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pod %s as written and as read (-written +read):\n%s", key, diff)
		}
	}
	cm, err := NewConfigMapView(f.log).Get(ctx, "shop", "settings")
	if err != nil || cm.Spec.Data["k"] != "v" {
		t.Errorf("configmap: %+v, %v", cm, err)
	}
	if got, err := NewReplicaSetView(f.log).Get(ctx, "shop", "web"); err != nil || !cmp.Equal(f.replicaSet, got) {
		t.Errorf("replicaset as written and as read (-written +read):\n%s%v", cmp.Diff(f.replicaSet, got), err)
	}
	if _, err := NewReplicaSetView(f.log).Get(ctx, "shop", "old"); err == nil {
		t.Error("a deleted replicaset reads back")
	}
	if got, err := NewPodDisruptionBudgetView(f.log).Get(ctx, "shop", "web"); err != nil || !cmp.Equal(f.budget, got) {
		t.Errorf("budget as written and as read (-written +read):\n%s%v", cmp.Diff(f.budget, got), err)
	}
	if got, err := NewJobView(f.log).Get(ctx, "shop", "pi"); err != nil || !cmp.Equal(f.job, got) || got.Status.Succeeded != 1 {
		t.Errorf("job as written and as read (-written +read):\n%s%v", cmp.Diff(f.job, got), err)
	}
	if _, err := NewJobView(f.log).Get(ctx, "shop", "gone"); err == nil {
		t.Error("a deleted job reads back")
	}
	if l, err := NewLeaseView(f.log).Get(ctx, domain.NodeLeaseNamespace, "a0"); err != nil || !l.RenewedAt.Equal(f.clk.Now()) {
		t.Errorf("lease: %+v, %v", l, err)
	}
	if a, ok, err := NewIPAMView(f.log).AllocationOf(ctx, "u2"); err != nil || !ok || a.Address == "" {
		t.Errorf("allocation of u2: %+v %v %v", a, ok, err)
	}
	if b, err := NewDeviceBindingView(f.log).Get(ctx, "pico-1"); err != nil || b.Address != "127.0.0.7" {
		t.Errorf("device binding: %+v, %v", b, err)
	}
	if err := NewNamespaceView(f.log).AcceptsObjects(ctx, "shop"); err != nil {
		t.Errorf("namespace shop: %v", err)
	}
	// A refused command writes nothing, on any engine.
	head, _ := f.log.Head(ctx)
	if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: "gone"}, domain.SetNodeSchedulable{Unschedulable: true}); err == nil {
		t.Error("cordoning a deleted node was accepted")
	}
	stale := f.nodes["b"]
	if _, err := f.w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: "b"},
		domain.Precondition[domain.LeaseCommand]{ResourceVersion: stale.ResourceVersion, Command: domain.UpdateLease{Content: leaseContent("b", f.clk.Now())}}); err == nil {
		t.Error("a renewal at a stale resourceVersion was accepted")
	}
	if _, err := f.w.ReplicaSetCommands().Execute(ctx, domain.Key{Namespace: "shop", Name: "web"},
		domain.Precondition[domain.ReplicaSetCommand]{ResourceVersion: stale.ResourceVersion, Command: domain.ScaleReplicaSet{Replicas: 5}}); err == nil {
		t.Error("a scale at a stale resourceVersion was accepted")
	}
	if h, _ := f.log.Head(ctx); h != head {
		t.Errorf("refused commands moved the head from %d to %d", head, h)
	}
}

func contractListsAtTheHead(t *testing.T, f *contractFleet) {
	ctx := t.Context()
	head, err := f.log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, n int, at int64, err error, want int) {
		t.Helper()
		if err != nil || at != head || n != want {
			t.Errorf("%s: %d rows at %d, %v; want %d at the head %d", what, n, at, err, want, head)
		}
	}
	ns, at, err := NewNodeView(f.log).List(ctx)
	check("nodes", len(ns), at, err, len(contractNodeNames)-1)
	ps, at, err := NewPodView(f.log).List(ctx, PodFilter{})
	check("pods", len(ps), at, err, 4)
	ps, at, err = NewPodView(f.log).List(ctx, PodFilter{NodeName: "a0"})
	check("pods on a0", len(ps), at, err, 2)
	ps, at, err = NewPodView(f.log).List(ctx, PodFilter{Unbound: true})
	check("unbound pods", len(ps), at, err, 1)
	cms, at, err := NewConfigMapView(f.log).List(ctx, "")
	check("configmaps", len(cms), at, err, 1)
	ls, at, err := NewLeaseView(f.log).List(ctx, domain.NodeLeaseNamespace)
	check("leases", len(ls), at, err, 2)
	nss, at, err := NewNamespaceView(f.log).List(ctx)
	check("namespaces", len(nss), at, err, 2)
	rss, at, err := NewReplicaSetView(f.log).List(ctx, "")
	check("replicasets", len(rss), at, err, 1)
	rss, at, err = NewReplicaSetView(f.log).List(ctx, "default")
	check("replicasets in default", len(rss), at, err, 0)
	jobs, at, err := NewJobView(f.log).List(ctx, "shop")
	check("jobs", len(jobs), at, err, 1)

	// A list of a view with no rows still has a head.
	empty, at, err := NewConfigMapView(f.log).List(ctx, "nowhere")
	check("configmaps of an empty namespace", len(empty), at, err, 0)
}

func contractPagesInByteOrder(t *testing.T, f *contractFleet) {
	ctx := t.Context()
	v := NewNodeView(f.log)
	var (
		got   []string
		after string
	)
	for {
		page, _, err := v.Rows(ctx, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range page {
			got = append(got, n.Name)
		}
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1].Name
	}
	// Rows include tombstones (a watch's history needs them).
	if diff := cmp.Diff(contractNodeNames, got); diff != "" {
		t.Errorf("node rows in pages of 2 (-want +got):\n%s", diff)
	}
	pods, _, err := NewPodView(f.log).Rows(ctx, "default/web-a", 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range pods {
		keys = append(keys, p.Key())
	}
	if diff := cmp.Diff([]string{"default/web.b", "shop/cart", "shop/queue"}, keys); diff != "" {
		t.Errorf("pod rows after default/web-a (-want +got):\n%s", diff)
	}
}

func contractNodeQueries(t *testing.T, f *contractFleet) {
	ctx := t.Context()
	v := NewNodeView(f.log)
	var draining []string
	ns, err := v.Draining(ctx)
	for _, n := range ns {
		draining = append(draining, n.Name)
	}
	if err != nil || !cmp.Equal(draining, []string{"draining"}) {
		t.Errorf("Draining: %v, %v; want [draining]", draining, err)
	}
	if got, err := v.NamesWithNoExecute(ctx); err != nil || !cmp.Equal(got, []string{"no-execute"}) {
		t.Errorf("NamesWithNoExecute: %v, %v", got, err)
	}
	// Only a0 reported (Ready), so every other one not deleted needs a
	// check.
	want := []string{"a-1", "a.0", "b", "drained", "draining", "no-execute", "pico-1"}
	if got, err := v.NamesNeedingTaintCheck(ctx); err != nil || !cmp.Equal(got, want) {
		t.Errorf("NamesNeedingTaintCheck: %v, %v; want %v", got, err, want)
	}
	if got, err := v.NamesOfKinds(ctx, []domain.NodeKind{domain.KindRP2040}); err != nil || !cmp.Equal(got, []string{"pico-1"}) {
		t.Errorf("NamesOfKinds(rp2040): %v, %v", got, err)
	}
	deadlines, err := v.NodeDeadlines(ctx)
	if err != nil {
		t.Fatal(err)
	}
	heard := map[string]time.Time{}
	for _, d := range deadlines {
		heard[d.Name] = d.LastHeartbeat
	}
	// a0 reported at t0+1s and renewed its lease at the fleet's last
	// write: the later counts. a-1 never did either.
	if len(deadlines) != len(contractNodeNames)-1 || !heard["a0"].Equal(f.clk.Now()) || !heard["a-1"].IsZero() {
		t.Errorf("NodeDeadlines: %+v", deadlines)
	}
	if got, err := NewPodView(f.log).BoundNodeNames(ctx, ""); err != nil || len(got) == 0 {
		t.Errorf("BoundNodeNames: %v, %v", got, err)
	}
}

// contractEveryOtherQuery runs the views' remaining statements, so that
// none is left that only one engine understands.
func contractEveryOtherQuery(t *testing.T, f *contractFleet) {
	ctx := t.Context()
	head, _ := f.log.Head(ctx)
	tl := NewTimelineView(f.log)
	if es, err := tl.Node(ctx, "drained", 0, 0); err != nil || len(es) < 2 {
		t.Errorf("timeline of drained: %+v, %v", es, err)
	}
	if es, err := tl.Node(ctx, "drained", 0, 1); err != nil || len(es) != 1 {
		t.Errorf("timeline of drained, limit 1: %+v, %v", es, err)
	}
	if es, err := tl.Between(ctx, 0, head); err != nil || len(es) == 0 {
		t.Errorf("timeline up to the head: %d entries, %v", len(es), err)
	}
	pods := NewPodView(f.log)
	herd := domain.PodSource("")
	for _, c := range []struct {
		f    PodFilter
		want int
	}{
		{PodFilter{Namespace: "shop"}, 2},
		{PodFilter{Phase: domain.PodPending}, 4},
		{PodFilter{Source: &herd}, 4},
		{PodFilter{Terminating: true}, 0},
		{PodFilter{Namespace: "default", Controllers: []string{"ReplicaSet/web"}}, 2},
		{PodFilter{Controllers: []string{""}}, 2},
		{PodFilter{Controllers: []string{"ReplicaSet/web", ""}}, 4},
		{PodFilter{Controllers: []string{}}, 0},
	} {
		if ps, _, err := pods.List(ctx, c.f); err != nil || len(ps) != c.want {
			t.Errorf("pods %+v: %d, %v; want %d", c.f, len(ps), err, c.want)
		}
	}
	// The controllers of the pods written before the column was there
	// are filled from their rows by the migration that adds it.
	db, engine := events.SQLDB(f.log)
	checkDescribedFill(t, db, engine, "pods", "controller")
	checkDescribedFill(t, db, engine, "replicasets", "controller")
	if rss, _, err := NewReplicaSetView(f.log).Controlled(ctx, "shop", []string{""}); err != nil || len(rss) != 0 {
		t.Errorf("shop's ReplicaSets without a controller: %d, %v; want none", len(rss), err)
	}
	if rss, _, err := NewReplicaSetView(f.log).Controlled(ctx, "shop", []string{"Deployment/web"}); err != nil || len(rss) != 1 {
		t.Errorf("shop's ReplicaSets of Deployment web: %d, %v; want web", len(rss), err)
	}
	if ps, _, err := pods.List(ctx, PodFilter{Controllers: []string{"ReplicaSet/web"}}); err != nil || len(ps) != 2 {
		t.Errorf("web's pods after the backfill: %d, %v; want 2", len(ps), err)
	}
	if gone, err := pods.GoneNodeNames(ctx, herd); err != nil || len(gone) != 0 {
		t.Errorf("GoneNodeNames: %v, %v", gone, err)
	}
	if got, err := NewNodeView(f.log).Names(ctx); err != nil || len(got) != len(contractNodeNames)-1 {
		t.Errorf("Names: %v, %v", got, err)
	}
	if at, err := NewNodeView(f.log).NodeLeaseRenewedAt(ctx, "b"); err != nil || !at.Equal(f.clk.Now()) {
		t.Errorf("lease of b renewed at %v, %v", at, err)
	}
	if ns, err := NewNamespaceView(f.log).Terminating(ctx); err != nil || len(ns) != 0 {
		t.Errorf("Terminating: %v, %v", ns, err)
	}
	created, err := f.w.EnsureNamespaces(ctx, func() string { return "uid" })
	// default exists already; the namespace of the node leases is in use.
	if want := []string{"kube-system", "kube-public", "kube-node-lease"}; err != nil || !cmp.Equal(created, want) {
		t.Errorf("EnsureNamespaces created %v, %v; want %v", created, err, want)
	}
	ts, at, err := NewKubeletTargetView(f.log).Targets(ctx)
	if h, _ := f.log.Head(ctx); err != nil || at != h || len(ts.Targets) != 1 {
		t.Errorf("kubelet targets: %+v at %d (head %d), %v", ts, at, h, err)
	}
	if kt, err := NewKubeletTargetView(f.log).Get(ctx, "k8s-02"); err != nil || kt.URL != "http://127.0.0.1:10256" {
		t.Errorf("kubelet target k8s-02: %+v, %v", kt, err)
	}
	if bs, err := NewDeviceBindingView(f.log).BoundTo(ctx, "127.0.0.7"); err != nil || len(bs) != 1 {
		t.Errorf("BoundTo: %+v, %v", bs, err)
	}
}

func contractRebuildEqualsLive(t *testing.T, f *contractFleet) {
	ctx := t.Context()
	live := contractSnapshot(t, f.log)
	stats, err := Rebuild(ctx, f.log, RebuildOptions{BatchSize: 7, Snapshots: SnapshotPolicy{Every: 2, Interval: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := f.log.Head(ctx); stats.Head != head || stats.Events != head {
		t.Errorf("rebuild: %+v, want every event up to the head %d", stats, head)
	}
	if diff := cmp.Diff(live, contractSnapshot(t, f.log)); diff != "" {
		t.Errorf("views kept inline and rebuilt from the log (-live +rebuilt):\n%s", diff)
	}
	// The rebuild took snapshots of every aggregate's streams, each its
	// stream folded from the log; a rebuild without a policy keeps them.
	taken, diff, err := VerifySnapshots(ctx, f.log)
	if err != nil || diff != nil || taken < int(stats.Events)/3 {
		t.Errorf("VerifySnapshots after a rebuild snapshotting every second event of %d = %d, %v, %v", stats.Events, taken, diff, err)
	}
	if _, err := Rebuild(ctx, f.log, RebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if kept, _, err := VerifySnapshots(ctx, f.log); err != nil || kept != taken {
		t.Errorf("a rebuild with no snapshot policy left %d snapshots of %d, %v", kept, taken, err)
	}
	// The rebuilt views go on as the inline ones would.
	if _, err := f.w.NodeCommands().Execute(ctx, domain.Key{Name: "a-1"}, domain.SetNodeSchedulable{Unschedulable: true}); err != nil {
		t.Fatal(err)
	}
	if n, err := NewNodeView(f.log).Get(ctx, "a-1"); err != nil || !n.Unschedulable {
		t.Errorf("a-1 after a cordon on the rebuilt views: %+v, %v", n, err)
	}
}

// contractSnapshot is every view's answer, as JSON.
func contractSnapshot(t *testing.T, log events.Log) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	put := func(what string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[what] = string(b)
	}
	nodes, _, err := NewNodeView(log).Rows(ctx, "", 0)
	put("nodes", nodes, err)
	pods, _, err := NewPodView(log).Rows(ctx, "", 0)
	put("pods", pods, err)
	cms, _, err := NewConfigMapView(log).Rows(ctx, "", 0)
	put("configmaps", cms, err)
	leases, _, err := NewLeaseView(log).Rows(ctx, "", 0)
	put("leases", leases, err)
	nss, _, err := NewNamespaceView(log).Rows(ctx, "", 0)
	put("namespaces", nss, err)
	rss, _, err := NewReplicaSetView(log).Rows(ctx, "", 0)
	put("replicasets", rss, err)
	pdbs, _, err := NewPodDisruptionBudgetView(log).Rows(ctx, "", 0)
	put("poddisruptionbudgets", pdbs, err)
	jobs, _, err := NewJobView(log).Rows(ctx, "", 0)
	put("jobs", jobs, err)
	allocs, err := NewIPAMView(log).Allocations(ctx)
	put("allocations", allocs, err)
	pools, err := NewIPAMView(log).Pools(ctx)
	put("pools", pools, err)
	bindings, err := NewDeviceBindingView(log).List(ctx)
	put("device bindings", bindings, err)
	recent, err := NewTimelineView(log).Recent(ctx, 1000)
	put("timeline", recent, err)
	fleet, err := NewNodeView(log).FleetHealth(ctx)
	put("fleet", fleet, err)
	targets, _, err := NewKubeletTargetView(log).Targets(ctx)
	put("kubelet targets", targets, err)
	return out
}

// TestVerifyInPlaceOnPostgres: replay --verify's check on PostgreSQL
// finds the rebuilt views equal to the live ones, leaves the live ones as
// they were, and names the first row that differs once one does.
func TestVerifyInPlaceOnPostgres(t *testing.T) {
	ctx := t.Context()
	log := eventstest.OpenPostgres(t, pgtest.URL(t))
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	writeContractFleet(t, log)
	before := contractSnapshot(t, log)
	diff, stats, err := VerifyInPlace(ctx, log, RebuildOptions{BatchSize: 5})
	if head, _ := log.Head(ctx); err != nil || diff != nil || stats.Head != head {
		t.Fatalf("verify: %v, %v, %+v (head %d)", diff, err, stats, head)
	}
	if d := cmp.Diff(before, contractSnapshot(t, log)); d != "" {
		t.Errorf("verify changed the live views (-before +after):\n%s", d)
	}
	// A live row that the log does not explain.
	db, _ := events.SQLDB(log)
	if _, err := db.ExecContext(ctx, `UPDATE nodes SET ready = 'Bogus' WHERE name = 'b'`); err != nil {
		t.Fatal(err)
	}
	diff, _, err = VerifyInPlace(ctx, log, RebuildOptions{})
	if err != nil || diff == nil || diff.Table != "nodes" || diff.Key != "name=b" {
		t.Fatalf("verify after a row was changed behind herd's back: %v, %v", diff, err)
	}
}

// TestReplicasDecideOnEachOthersWrites: two herd processes on one
// PostgreSQL database each decide a command on the node as the other
// left it, never on a state of their own remembered from before.
func TestReplicasDecideOnEachOthersWrites(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	open := func() *Writer {
		log := eventstest.OpenPostgres(t, url)
		if err := Migrate(ctx, log); err != nil {
			t.Fatal(err)
		}
		return NewWriter(log, clocktesting.NewFakeClock(t0), nil)
	}
	a, b := open(), open()
	cordon := func(w *Writer, unschedulable bool) domain.Node {
		t.Helper()
		n, err := w.NodeCommands().Execute(ctx, domain.Key{Name: "web-01"}, domain.SetNodeSchedulable{Unschedulable: unschedulable})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := a.NodeCommands().Execute(ctx, domain.Key{Name: "web-01"}, register("web-01", domain.KindLinux)); err != nil {
		t.Fatal(err)
	}
	cordon(a, true)
	cordon(b, false)
	if n := cordon(a, true); !n.Unschedulable || n.Version != 4 {
		t.Errorf("a cordon through the first replica after an uncordon through the second: unschedulable %v at version %d, want true at 4",
			n.Unschedulable, n.Version)
	}
	if n, err := NewNodeView(b.log).Get(ctx, "web-01"); err != nil || !n.Unschedulable {
		t.Errorf("the second replica reads %+v, %v", n, err)
	}
}

// checkControllerBackfill empties table's controller column and runs
// again the UPDATE of the migration that added it, as it ran on the rows
// of a herd from before it.
// checkDescribedFill empties column of table in every row and fills it
// again with the statement its description adds it with to a table an
// older herd made.
func checkDescribedFill(t *testing.T, db *sql.DB, engine events.Engine, table, column string) {
	t.Helper()
	i := slices.IndexFunc(describedTables(), func(d viewstore.Table) bool { return d.Name == table })
	if i < 0 {
		t.Fatalf("%s is not a described table", table)
	}
	desc := describedTables()[i]
	i = slices.IndexFunc(desc.Columns, func(c viewstore.Column) bool { return c.Name == column })
	if i < 0 {
		t.Fatalf("%s's description has no column %s", table, column)
	}
	fill := desc.Columns[i].Fill.SQLite
	if engine == events.EnginePostgres {
		fill = desc.Columns[i].Fill.Postgres
	}
	if _, err := db.ExecContext(t.Context(), "UPDATE "+table+" SET "+column+" = ''"); err != nil { //nolint:gosec // the test's own table names
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), fill); err != nil {
		t.Fatalf("the fill of %s.%s: %v", table, column, err)
	}
}
