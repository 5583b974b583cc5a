package deployment

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// harness is the reconciler on herd's own views and unit of work, with
// the ReplicaSets' pods played by settle: what the ReplicaSet
// reconciler and the runtime would report of them.
type harness struct {
	t   *testing.T
	env *reconcilerstest.Env
	r   *Reconciler
	ds  *projections.DeploymentView
	rss *projections.ReplicaSetView
}

func newHarness(t *testing.T) *harness {
	env := reconcilerstest.New(t)
	ds, rss := projections.NewDeploymentView(env.Log), projections.NewReplicaSetView(env.Log)
	r, err := New(DefaultConfig(), ds, rss, env.Writer.ReplicaSetCommands(), env.Writer.DeploymentCommands(), env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	r.uid = func() string { n++; return fmt.Sprintf("uid-rs-%d", n) }
	return &harness{t: t, env: env, r: r, ds: ds, rss: rss}
}

var (
	webKey       = reconcilers.Key{Aggregate: domain.DeploymentAggregate, Namespace: "default", Name: "web"}
	webDomainKey = domain.Key{Namespace: "default", Name: "web"}
)

func webSpec(replicas int32, image string) domain.DeploymentSpec {
	return domain.DeploymentSpec{
		Replicas: replicas, Selector: domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: domain.PodTemplate{Labels: map[string]string{"app": "web"},
			Spec: domain.PodSpec{Containers: []domain.Container{{Name: "web", Image: image}}}},
		Strategy:             domain.DeploymentStrategy{Type: domain.RollingUpdateStrategy, MaxSurge: domain.Percents(25), MaxUnavailable: domain.Percents(25)},
		RevisionHistoryLimit: 10, ProgressDeadlineSeconds: 600,
	}
}

func (h *harness) create(spec domain.DeploymentSpec) {
	h.t.Helper()
	if _, err := h.env.Writer.DeploymentCommands().Execute(h.t.Context(), webDomainKey, domain.CreateDeployment{
		Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec: spec,
	}); err != nil {
		h.t.Fatal(err)
	}
}

// rolledOut creates the Deployment of spec and reconciles it until its
// pods run: its ReplicaSet made, its pods all available, its status
// recorded.
func (h *harness) rolledOut(spec domain.DeploymentSpec) {
	h.t.Helper()
	h.create(spec)
	h.reconcile()
	h.settle(-1)
	h.reconcile()
}

func (h *harness) get() domain.Deployment {
	h.t.Helper()
	d, err := h.ds.Get(h.t.Context(), "default", "web")
	if err != nil {
		h.t.Fatal(err)
	}
	return d
}

// change applies edit to the Deployment's spec, as kubectl set image or
// scale would.
func (h *harness) change(edit func(*domain.DeploymentSpec)) {
	h.t.Helper()
	d := h.get()
	spec := d.Spec
	spec.Template = domain.PodTemplate{Labels: spec.Template.Labels, Spec: spec.Template.Spec}
	spec.Template.Spec.Containers = slices.Clone(spec.Template.Spec.Containers)
	edit(&spec)
	if _, err := h.env.Writer.DeploymentCommands().Execute(h.t.Context(), webDomainKey, domain.UpdateDeployment{
		Meta: domain.ObjectMeta{Labels: d.Labels, Annotations: d.Annotations},
		Spec: spec,
	}); err != nil {
		h.t.Fatal(err)
	}
}

// reconcile runs one reconcile, and a second that must write nothing
// more once the first's writes are settled.
func (h *harness) reconcile() reconcilers.Result {
	h.t.Helper()
	res, err := h.r.Reconcile(h.t.Context(), webKey)
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

// replicaSets are the namespace's ReplicaSets by name.
func (h *harness) replicaSets() map[string]domain.ReplicaSet {
	h.t.Helper()
	rss, _, err := h.rss.List(h.t.Context(), "default")
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]domain.ReplicaSet{}
	for _, rs := range rss {
		out[rs.Name] = rs
	}
	return out
}

// settle reports every ReplicaSet's pods as its spec asks, up to ready
// of them per ReplicaSet ready and available (-1 for all).
func (h *harness) settle(ready int32) {
	h.t.Helper()
	for _, rs := range h.replicaSets() {
		n := rs.Spec.Replicas
		if ready >= 0 {
			n = min(n, ready)
		}
		st := domain.ReplicaSetStatus{Replicas: rs.Spec.Replicas, FullyLabeledReplicas: rs.Spec.Replicas, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: rs.Generation}
		if _, err := h.env.Writer.ReplicaSetCommands().Execute(h.t.Context(), rs.Key(), domain.RecordReplicaSetStatus{Status: st}); err != nil {
			h.t.Fatal(err)
		}
	}
}

// byImage is each ReplicaSet's replicas by its image.
func (h *harness) byImage() map[string]int32 {
	out := map[string]int32{}
	for _, rs := range h.replicaSets() {
		out[rs.Spec.Template.Spec.Containers[0].Image] = rs.Spec.Replicas
	}
	return out
}

func TestCreateMakesOneReplicaSetOfTheTemplate(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(4, "nginx:1"))
	h.reconcile()
	rss := h.replicaSets()
	if len(rss) != 1 {
		t.Fatalf("replicasets %v, want one", rss)
	}
	for name, rs := range rss {
		hash := rs.Spec.Template.Labels[domain.PodTemplateHashLabel]
		if hash == "" || name != "web-"+hash || rs.Spec.Selector.MatchLabels[domain.PodTemplateHashLabel] != hash {
			t.Errorf("replicaset %s: template labels %v, selector %v: want both to carry the name's hash", name, rs.Spec.Template.Labels, rs.Spec.Selector)
		}
		if rs.Spec.Replicas != 4 || rs.Annotations[domain.RevisionAnnotation] != "1" || !h.get().Owns(rs) {
			t.Errorf("replicaset %s: %d replicas, annotations %v, owners %v", name, rs.Spec.Replicas, rs.Annotations, rs.Owners)
		}
	}
	h.settle(-1)
	head := h.env.Head()
	h.reconcile()
	d := h.get()
	if d.Status.AvailableReplicas != 4 || d.Status.UpdatedReplicas != 4 || d.Annotations[domain.RevisionAnnotation] != "1" {
		t.Errorf("status %+v, annotations %v", d.Status, d.Annotations)
	}
	if c, _ := d.Status.Condition(condProgressing); c.Reason != reasonAvailable {
		t.Errorf("Progressing %+v, want %s", c, reasonAvailable)
	}
	h.reconcile()
	if recs := h.env.Records(head); len(recs) != 1 {
		t.Errorf("a settled deployment reconciled twice wrote %d records, want its status once", len(recs))
	}
}

// TestRollingUpdateKeepsWithinSurgeAndUnavailability rolls ten replicas
// to a new image with 25% surge and unavailability, the new pods
// becoming available one step behind: at every step the ReplicaSets ask
// for at most 13 pods and at least 8 are available.
func TestRollingUpdateKeepsWithinSurgeAndUnavailability(t *testing.T) {
	h := newHarness(t)
	h.rolledOut(webSpec(10, "nginx:1"))
	h.change(func(s *domain.DeploymentSpec) { s.Template.Spec.Containers[0].Image = "nginx:2" })
	for step := 0; ; step++ {
		if step > 40 {
			t.Fatalf("not rolled out after 40 steps: %v", h.byImage())
		}
		h.reconcile()
		var total, available int32
		for _, rs := range h.replicaSets() {
			total += rs.Spec.Replicas
			available += rs.Status.AvailableReplicas
		}
		if total > 13 {
			t.Fatalf("step %d: the ReplicaSets ask for %d pods, more than 10 + 3 surge: %v", step, total, h.byImage())
		}
		if available < 8 {
			t.Fatalf("step %d: %d pods available, fewer than 10 - 2: %v", step, available, h.byImage())
		}
		h.settle(-1)
		if d := h.get(); complete(d, d.Status) {
			break
		}
	}
	if got := h.byImage(); got["nginx:2"] != 10 || got["nginx:1"] != 0 {
		t.Errorf("after the rollout: %v", got)
	}
	d := h.get()
	if d.Annotations[domain.RevisionAnnotation] != "2" {
		t.Errorf("revision %q, want 2", d.Annotations[domain.RevisionAnnotation])
	}
}

func TestRecreateStartsNewPodsOnlyOnceTheOldAreGone(t *testing.T) {
	h := newHarness(t)
	spec := webSpec(3, "nginx:1")
	spec.Strategy = domain.DeploymentStrategy{Type: domain.RecreateStrategy}
	h.create(spec)
	h.reconcile()
	h.settle(-1)
	h.change(func(s *domain.DeploymentSpec) { s.Template.Spec.Containers[0].Image = "nginx:2" })
	h.reconcile()
	if got := h.byImage(); len(got) != 1 || got["nginx:1"] != 0 {
		t.Fatalf("after the first step %v, want the old ReplicaSet scaled to 0 and no new one", got)
	}
	h.reconcile()
	if got := h.byImage(); len(got) != 1 {
		t.Fatalf("a new ReplicaSet while the old pods still stop: %v", got)
	}
	h.settle(-1) // the old pods are gone
	h.reconcile()
	if got := h.byImage(); got["nginx:2"] != 3 {
		t.Errorf("after the old pods stopped: %v", got)
	}
}

// TestUndoBringsTheOldRevisionBack: going back to the first template
// reuses its ReplicaSet, which becomes revision 3, as kubectl rollout
// undo expects.
func TestUndoBringsTheOldRevisionBack(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(2, "nginx:1"))
	roll := func() {
		for range 20 {
			h.reconcile()
			h.settle(-1)
		}
		h.reconcile()
	}
	roll()
	h.change(func(s *domain.DeploymentSpec) { s.Template.Spec.Containers[0].Image = "nginx:2" })
	roll()
	h.change(func(s *domain.DeploymentSpec) { s.Template.Spec.Containers[0].Image = "nginx:1" })
	roll()
	rss := h.replicaSets()
	if len(rss) != 2 {
		t.Fatalf("replicasets %v, want the two revisions' only", rss)
	}
	for _, rs := range rss {
		want := map[string]string{"nginx:1": "3", "nginx:2": "2"}[rs.Spec.Template.Spec.Containers[0].Image]
		if got := rs.Annotations[domain.RevisionAnnotation]; got != want {
			t.Errorf("%s (%s): revision %s, want %s", rs.Name, rs.Spec.Template.Spec.Containers[0].Image, got, want)
		}
	}
	if got := h.byImage(); got["nginx:1"] != 2 || got["nginx:2"] != 0 {
		t.Errorf("after the undo %v", got)
	}
	if got := h.get().Annotations[domain.RevisionAnnotation]; got != "3" {
		t.Errorf("the deployment's revision %q, want 3", got)
	}
}

func TestPausedDeploymentScalesButDoesNotRoll(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(2, "nginx:1"))
	h.reconcile()
	h.settle(-1)
	h.change(func(s *domain.DeploymentSpec) {
		s.Paused = true
		s.Template.Spec.Containers[0].Image = "nginx:2"
		s.Replicas = 5
	})
	h.reconcile()
	if got := h.byImage(); len(got) != 1 || got["nginx:1"] != 5 {
		t.Errorf("paused: %v, want the running revision scaled to 5 and no new one", got)
	}
	if c, _ := h.get().Status.Condition(condProgressing); c.Reason != reasonPaused || c.Status != conditionUnknown {
		t.Errorf("Progressing %+v, want Unknown %s", c, reasonPaused)
	}
	h.change(func(s *domain.DeploymentSpec) { s.Paused = false })
	h.reconcile()
	if c, _ := h.get().Status.Condition(condProgressing); c.Reason != reasonResumed {
		t.Errorf("Progressing %+v after resuming, want %s", c, reasonResumed)
	}
	if got := h.byImage(); got["nginx:2"] == 0 {
		t.Errorf("resumed: %v, want the new revision started", got)
	}
}

// TestProgressDeadline: a rollout whose pods never become available
// turns Progressing False once progressDeadlineSeconds pass without
// progress, and the reconcile asks to come back at the deadline.
func TestProgressDeadline(t *testing.T) {
	h := newHarness(t)
	spec := webSpec(2, "nginx:1")
	spec.ProgressDeadlineSeconds = 60
	h.create(spec)
	res := h.reconcile()
	if res.RequeueAfter <= 0 || res.RequeueAfter > 61*time.Second {
		t.Errorf("requeue after %s, want the deadline's 60 s", res.RequeueAfter)
	}
	h.settle(0) // created, never ready
	h.env.SetTime(30)
	h.reconcile()
	if c, _ := h.get().Status.Condition(condProgressing); c.Status != conditionTrue {
		t.Errorf("before the deadline: %+v", c)
	}
	// The pods' creation at 30 s was progress: the deadline runs from
	// there.
	h.env.SetTime(91)
	h.reconcile()
	c, _ := h.get().Status.Condition(condProgressing)
	if c.Status != conditionFalse || c.Reason != reasonTimedOut || !strings.Contains(c.Message, "has timed out progressing") {
		t.Errorf("after the deadline: %+v", c)
	}
}

func TestHistoryBeyondTheLimitIsDeleted(t *testing.T) {
	h := newHarness(t)
	spec := webSpec(1, "v1")
	spec.RevisionHistoryLimit = 1
	h.create(spec)
	for _, image := range []string{"v2", "v3", "v4"} {
		for range 10 {
			h.reconcile()
			h.settle(-1)
		}
		h.change(func(s *domain.DeploymentSpec) { s.Template.Spec.Containers[0].Image = image })
	}
	for range 10 {
		h.reconcile()
		h.settle(-1)
	}
	got := h.byImage()
	if len(got) != 2 || got["v4"] != 1 || got["v3"] != 0 {
		t.Errorf("replicasets %v, want v4 running and v3 kept as the one old revision", got)
	}
}

func TestGoneDeploymentsReplicaSetsAreDeleted(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(2, "nginx:1"))
	h.reconcile()
	if _, err := h.env.Writer.DeploymentCommands().Execute(t.Context(), webDomainKey, domain.DeleteDeployment{}); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	if rss := h.replicaSets(); len(rss) != 0 {
		t.Errorf("replicasets of a deleted deployment left: %v", rss)
	}
}

func TestANameTakenRaisesTheCollisionCount(t *testing.T) {
	h := newHarness(t)
	spec := webSpec(1, "nginx:1")
	name := "web-" + templateHash(spec.Template, 0)
	stranger := domain.CreateReplicaSet{
		Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-stranger"},
		Spec: domain.ReplicaSetSpec{
			Replicas: 0, Selector: domain.LabelSelector{MatchLabels: map[string]string{"other": "x"}},
			Template: domain.PodTemplate{Labels: map[string]string{"other": "x"}, Spec: spec.Template.Spec},
		},
	}
	if _, err := h.env.Writer.ReplicaSetCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, stranger); err != nil {
		t.Fatal(err)
	}
	h.create(spec)
	if _, err := h.r.Reconcile(t.Context(), webKey); err == nil {
		t.Fatal("the reconcile over a taken name succeeded")
	}
	if got := h.get().Status.CollisionCount; got != 1 {
		t.Fatalf("collision count %d, want 1", got)
	}
	h.reconcile()
	if rss := h.replicaSets(); len(rss) != 2 {
		t.Errorf("replicasets %v, want the stranger and the deployment's under another name", rss)
	}
}

// TestKeysFor: a ReplicaSet's events reach the Deployment that controls
// it, its own status does not reach itself.
func TestKeysFor(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(1, "nginx:1"))
	start := h.env.Head()
	h.reconcile()
	h.settle(-1)
	var keys []string
	for _, rec := range h.env.Records(start) {
		keys = append(keys, reconcilerstest.Strings(h.r.Watches().KeysFor(rec))...)
	}
	// The ReplicaSet's creation and its status; not the Deployment's
	// status.
	if want := []string{"deployment/default/web", "deployment/default/web"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
}

// TestAnOrphanReplicaSetReachesTheDeploymentThatAdoptsIt: once a
// reconcile has read a Deployment, a ReplicaSet made without a controller
// with labels its selector matches reaches it as it comes
// (Watches.Adopts), and one with other labels does not.
func TestAnOrphanReplicaSetReachesTheDeploymentThatAdoptsIt(t *testing.T) {
	h := newHarness(t)
	spec := webSpec(1, "nginx:1")
	h.create(spec)
	h.reconcile()
	orphan := func(labels map[string]string) []string {
		return reconcilerstest.Strings(h.r.Watches().KeysFor(reconcilerstest.Record(t, "replicaset/default/by-hand",
			domain.ReplicaSetCreated{Namespace: "default", Name: "by-hand", Labels: labels})))
	}
	if got := orphan(spec.Selector.MatchLabels); !slices.Equal(got, []string{"deployment/default/web"}) {
		t.Errorf("an orphan of the Deployment's labels reaches %v, want the Deployment", got)
	}
	if got := orphan(map[string]string{"app": "other"}); len(got) != 0 {
		t.Errorf("an orphan of other labels reaches %v, want none", got)
	}
}

// TestForegroundDeletionWaitsForTheReplicaSets: a Deployment deleted in
// the foreground stays, being deleted, while its ReplicaSets are deleted
// in the foreground in turn; once they are gone the reconciler leaves it
// to the garbage collector, which deletes it when no other dependent
// blocks it either.
func TestForegroundDeletionWaitsForTheReplicaSets(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(2, "nginx:1"))
	h.reconcile()
	if _, err := h.env.Writer.DeploymentCommands().Execute(t.Context(), webDomainKey, domain.DeleteDeployment{Propagation: domain.PropagateForeground}); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	if d := h.get(); d.DeletionRequestedAt == nil {
		t.Fatalf("the deployment went before its replicasets: %+v", d)
	}
	rss := h.replicaSets()
	if len(rss) != 1 {
		t.Fatalf("replicasets %v", rss)
	}
	for _, rs := range rss {
		if rs.DeletionRequestedAt == nil {
			t.Fatalf("its replicaset is not being deleted in the foreground: %+v", rs)
		}
		// What the ReplicaSet reconciler does once the pods are gone.
		if _, err := h.env.Writer.ReplicaSetCommands().Execute(t.Context(), rs.Key(), domain.FinishReplicaSetDeletion{}); err != nil {
			t.Fatal(err)
		}
	}
	h.reconcile()
	if d := h.get(); d.DeletionRequestedAt == nil {
		t.Errorf("the deployment reconciler finished a deletion that the garbage collector finishes: %+v", d)
	}
}

// TestOrphanDeletionLeavesTheReplicaSets: a Deployment deleted with its
// dependents orphaned leaves its ReplicaSet running, without an owner.
func TestOrphanDeletionLeavesTheReplicaSets(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(2, "nginx:1"))
	h.reconcile()
	if _, err := h.env.Writer.DeploymentCommands().Execute(t.Context(), webDomainKey, domain.DeleteDeployment{Propagation: domain.PropagateOrphan}); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	rss := h.replicaSets()
	if len(rss) != 1 {
		t.Fatalf("replicasets %v, want the one left", rss)
	}
	for _, rs := range rss {
		if len(rs.Owners) != 0 || rs.Spec.Replicas != 2 {
			t.Errorf("the orphan %s: owners %v, %d replicas", rs.Name, rs.Owners, rs.Spec.Replicas)
		}
	}
}

// mapsToWeb checks that the log after position from holds a record of
// the type of want, and that it reaches the web Deployment.
func (h *harness) mapsToWeb(from int64, want domain.Event) {
	h.t.Helper()
	var types []string
	for _, rec := range h.env.Records(from) {
		if rec.Type != want.EventType() {
			types = append(types, rec.Type)
			continue
		}
		if keys := reconcilerstest.Strings(h.r.Watches().KeysFor(rec)); !slices.Equal(keys, []string{webKey.String()}) {
			h.t.Errorf("%s maps to %v, want the Deployment", rec.Type, keys)
		}
		return
	}
	h.t.Fatalf("recorded %v, want a %s", types, want.EventType())
}

// TestChangeCauseAnnotatedAfterTheRolloutReachesTheCurrentRevision: a
// change-cause annotated on the Deployment once its rollout is done is
// copied to the current ReplicaSet, as Kubernetes' Deployment controller
// copies it, so that kubectl rollout history shows it; the older
// revision keeps what it had. The annotation is a change of metadata
// alone, which the reconciler watches.
func TestChangeCauseAnnotatedAfterTheRolloutReachesTheCurrentRevision(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(2, "nginx:1"))
	h.reconcile()
	h.settle(-1)
	h.change(func(s *domain.DeploymentSpec) { s.Template.Spec.Containers[0].Image = "nginx:2" })
	for range 4 {
		h.reconcile()
		h.settle(-1)
	}
	d := h.get()
	ann := map[string]string{domain.ChangeCauseAnnotation: "to nginx 2"}
	annotated := h.env.Head()
	if _, err := h.env.Writer.DeploymentCommands().Execute(t.Context(), webDomainKey, domain.UpdateDeployment{
		Meta: domain.ObjectMeta{Labels: d.Labels, Annotations: ann},
		Spec: d.Spec,
	}); err != nil {
		t.Fatal(err)
	}
	// The annotation alone is the Deployment's metadata, which reaches
	// the reconciler; so does the ReplicaSet's, copied from it.
	h.mapsToWeb(annotated, domain.DeploymentMetadataChanged{})
	copied := h.env.Head()
	h.reconcile()
	h.mapsToWeb(copied, domain.ReplicaSetMetadataChanged{})
	for _, rs := range h.replicaSets() {
		cause, rev := rs.Annotations[domain.ChangeCauseAnnotation], rs.Annotations[domain.RevisionAnnotation]
		switch image := rs.Spec.Template.Spec.Containers[0].Image; {
		case image == "nginx:2" && (cause != "to nginx 2" || rev != "2"):
			t.Errorf("the current replicaset %s: change-cause %q, revision %q; want %q, 2", rs.Name, cause, rev, "to nginx 2")
		case image == "nginx:1" && cause != "":
			t.Errorf("the old replicaset %s took the change-cause %q", rs.Name, cause)
		}
	}
	head := h.env.Head()
	h.reconcile()
	if h.env.Head() != head {
		t.Errorf("a second reconcile wrote again")
	}
}
