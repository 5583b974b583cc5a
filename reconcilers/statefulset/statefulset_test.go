package statefulset

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

type fakeSets = reconcilerstest.Store[domain.StatefulSet, domain.StatefulSetCommand]

type fakeRevisions = reconcilerstest.Store[domain.ControllerRevision, domain.ControllerRevisionCommand]

var (
	_ Reader         = (*fakeSets)(nil)
	_ PodLister      = (*reconcilerstest.Pods)(nil)
	_ RevisionReader = (*fakeRevisions)(nil)
)

var t0 = reconcilerstest.T0

// fixture is the reconciler on fakes and a fake clock, and the
// StatefulSet default/web.
type fixture struct {
	r     *Reconciler
	sets  *fakeSets
	revs  *fakeRevisions
	pods  *reconcilerstest.Pods
	clock *clocktesting.FakeClock
}

var webKey = domain.Key{Namespace: "default", Name: "web"}

func newFixture(t *testing.T, change func(*domain.StatefulSetSpec)) *fixture {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	f := &fixture{clock: clk, pods: reconcilerstest.NewPods(clk.Now),
		sets: reconcilerstest.NewStore(clk.Now, domain.DecideObject[domain.StatefulSet], func(s domain.StatefulSet, ev domain.Event) domain.StatefulSet {
			s = domain.EvolveObject(s, ev)
			s.ResourceVersion++
			return s
		}),
		revs: reconcilerstest.NewStore(clk.Now, domain.DecideControllerRevision, func(r domain.ControllerRevision, ev domain.Event) domain.ControllerRevision {
			r = domain.EvolveControllerRevision(r, ev)
			r.ResourceVersion++
			return r
		}),
	}
	spec := domain.StatefulSetSpec{Replicas: 3, ServiceName: "web",
		Selector: domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: domain.PodTemplate{Labels: map[string]string{"app": "web"},
			Spec: domain.PodSpec{Containers: []domain.Container{{Name: "web", Image: "nginx:1"}}}}}
	if change != nil {
		change(&spec)
	}
	if _, err := f.sets.Execute(t.Context(), webKey, domain.CreateStatefulSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"}, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	codec := RevisionFuncs{DataOf: conversions.StatefulSetRevisionData, TemplateOf: conversions.StatefulSetRevisionTemplate}
	f.r = New(f.sets, f.pods, f.sets, f.pods, Revisions{Reader: f.revs, Cmds: f.revs, Codec: codec}, clk, zap.NewNop())
	n := 0
	f.r.newUID = func() string { n++; return "uid-pod-" + string(rune('0'+n)) }
	return f
}

// reconcile reconciles default/web once.
func (f *fixture) reconcile(t *testing.T) reconcilers.Result {
	t.Helper()
	res, err := f.r.Reconcile(t.Context(), reconcilers.Key{Aggregate: domain.StatefulSetAggregate, Namespace: "default", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// names are the pods that exist, terminating ones marked with a '~'.
func (f *fixture) names() string {
	var out []string
	for _, p := range f.pods.Pods {
		if !p.Exists() {
			continue
		}
		n := p.Name
		if p.Terminating() {
			n += "~"
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// ready makes pod name Running and Ready now on node n1, as its node
// reports it.
func (f *fixture) ready(names ...string) {
	for _, name := range names {
		k := domain.Key{Namespace: "default", Name: name}
		p := f.pods.Pods[k]
		p.Spec.NodeName = "n1"
		p.Status = domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
			{Type: domain.PodConditionReady, Status: domain.ConditionTrue, LastTransitionTime: f.clock.Now()}}}
		f.pods.Pods[k] = p
	}
}

// gone finishes the termination of the pods being deleted.
func (f *fixture) gone() {
	for k, p := range f.pods.Pods {
		if p.Terminating() || !p.Exists() {
			delete(f.pods.Pods, k)
		}
	}
}

func (f *fixture) set(t *testing.T) domain.StatefulSet {
	t.Helper()
	s, err := f.sets.Last(t.Context(), "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) update(t *testing.T, change func(*domain.StatefulSetSpec)) {
	t.Helper()
	s := f.set(t)
	spec := s.Spec
	change(&spec)
	if _, err := f.sets.Execute(t.Context(), webKey, domain.UpdateStatefulSet{Spec: spec}); err != nil {
		t.Fatal(err)
	}
}

// startedThenRolled starts web-0..2, each Ready in turn, then gives the
// set a new image held at partition; it returns the revisions before and
// after the change.
func (f *fixture) startedThenRolled(t *testing.T, partition int32) (old, rev string) {
	t.Helper()
	for _, n := range []string{"web-0", "web-1", "web-2"} {
		f.reconcile(t)
		f.ready(n)
	}
	f.reconcile(t)
	old = Revision(f.set(t))
	f.update(t, func(s *domain.StatefulSetSpec) {
		s.Template.Spec.Containers[0].Image = "nginx:2"
		s.UpdateStrategy.Partition = &partition
	})
	return old, Revision(f.set(t))
}

func (f *fixture) expect(t *testing.T, want string) {
	t.Helper()
	if got := f.names(); got != want {
		t.Fatalf("pods %q, want %q", got, want)
	}
}

// TestOrderedReadyCreatesOneOrdinalAfterAnother: web-1 comes only once
// web-0 is Running and Ready, web-2 once web-1 is; each pod carries its
// name and revision and is owned by the set; the status counts them.
func TestOrderedReadyCreatesOneOrdinalAfterAnother(t *testing.T) {
	f := newFixture(t, nil)
	f.reconcile(t)
	f.expect(t, "web-0")
	f.reconcile(t)
	f.expect(t, "web-0")
	f.ready("web-0")
	f.reconcile(t)
	f.expect(t, "web-0,web-1")
	f.ready("web-1")
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
	f.ready("web-2")
	f.reconcile(t)
	s := f.set(t)
	p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-2"}]
	rev := Revision(s)
	if p.Labels[domain.LabelStatefulSetPodName] != "web-2" || p.Labels[domain.LabelControllerRevisionHash] != rev || !s.Owns(p) {
		t.Errorf("pod web-2: labels %v, owners %v", p.Labels, p.Owners)
	}
	want := domain.StatefulSetStatus{ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3,
		CurrentRevision: rev, UpdateRevision: rev}
	if s.Status != want {
		t.Errorf("status %+v, want %+v", s.Status, want)
	}
}

// TestParallelCreatesAndDeletesAllAtOnce: with Parallel, every ordinal
// is created in one reconcile, ready or not, and a scale down deletes
// every condemned pod at once.
func TestParallelCreatesAndDeletesAllAtOnce(t *testing.T) {
	f := newFixture(t, func(s *domain.StatefulSetSpec) { s.PodManagementPolicy = domain.StatefulSetParallel })
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
	f.ready("web-0", "web-1", "web-2")
	f.update(t, func(s *domain.StatefulSetSpec) { s.Replicas = 1 })
	f.reconcile(t)
	f.expect(t, "web-0,web-1~,web-2~")
}

// TestScaleDownRemovesTheHighestOrdinalFirst: with OrderedReady, a scale
// from 3 to 1 deletes web-2, waits for it to be gone, then web-1.
func TestScaleDownRemovesTheHighestOrdinalFirst(t *testing.T) {
	f := newFixture(t, nil)
	for _, n := range []string{"web-0", "web-1", "web-2"} {
		f.reconcile(t)
		f.ready(n)
	}
	f.expect(t, "web-0,web-1,web-2")
	f.update(t, func(s *domain.StatefulSetSpec) { s.Replicas = 1 })
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2~")
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2~")
	f.gone()
	f.reconcile(t)
	f.expect(t, "web-0,web-1~")
	f.gone()
	f.reconcile(t)
	f.expect(t, "web-0")
	if s := f.set(t); s.Status.Replicas != 1 || s.Status.ReadyReplicas != 1 {
		t.Errorf("status %+v", s.Status)
	}
}

// TestADeletedPodComesBackUnderItsName: a replica deleted by hand is made
// again as web-1 once it is gone, and one that failed is deleted first,
// then made again.
func TestADeletedPodComesBackUnderItsName(t *testing.T) {
	f := newFixture(t, nil)
	for _, n := range []string{"web-0", "web-1", "web-2"} {
		f.reconcile(t)
		f.ready(n)
	}
	old := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-1"}].UID
	delete(f.pods.Pods, domain.Key{Namespace: "default", Name: "web-1"})
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
	if p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-1"}]; p.UID == old {
		t.Errorf("web-1 kept its old uid %s", p.UID)
	}
	k := domain.Key{Namespace: "default", Name: "web-0"}
	p := f.pods.Pods[k]
	p.Status = domain.PodStatus{Phase: domain.PodFailed}
	f.pods.Pods[k] = p
	f.reconcile(t)
	// A pod that stopped needs no grace: it is gone at once.
	f.expect(t, "web-1,web-2")
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
}

// TestRollingUpdateGoesFromTheHighestOrdinalDownToThePartition: a new
// image replaces web-2, then (once web-2 is ready again) web-1, never
// web-0 below partition 1; the status says the revisions.
func TestRollingUpdateGoesFromTheHighestOrdinalDownToThePartition(t *testing.T) {
	f := newFixture(t, nil)
	old, rev := f.startedThenRolled(t, 1)
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2~")
	f.gone()
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
	if p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-2"}]; p.Labels[domain.LabelControllerRevisionHash] != rev || p.Spec.Containers[0].Image != "nginx:2" {
		t.Fatalf("web-2 was made again as %v %v", p.Labels, p.Spec.Containers)
	}
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2") // web-2 is not ready yet
	f.ready("web-2")
	f.reconcile(t)
	f.expect(t, "web-0,web-1~,web-2")
	f.gone()
	f.reconcile(t)
	f.ready("web-1")
	f.reconcile(t)
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
	if p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-0"}]; p.Labels[domain.LabelControllerRevisionHash] != old {
		t.Errorf("web-0, below the partition, was replaced")
	}
	s := f.set(t)
	if s.Status.UpdatedReplicas != 2 || s.Status.CurrentRevision != old || s.Status.UpdateRevision != rev || s.Status.CurrentReplicas != 1 || s.Status.ObservedGeneration != 2 {
		t.Errorf("status %+v", s.Status)
	}
	zero := int32(0)
	f.update(t, func(s *domain.StatefulSetSpec) { s.UpdateStrategy.Partition = &zero })
	f.reconcile(t)
	f.expect(t, "web-0~,web-1,web-2")
	f.gone()
	f.reconcile(t)
	f.ready("web-0")
	f.reconcile(t)
	if s := f.set(t); s.Status.CurrentRevision != rev || s.Status.CurrentReplicas != 3 || s.Status.UpdatedReplicas != 3 {
		t.Errorf("after the rollout, status %+v", s.Status)
	}
}

// TestRollingUpdateReplacesUpToMaxUnavailableAtATime: with Parallel
// pods and maxUnavailable 50% of four replicas, a new template replaces
// the two highest ordinals at once, and the next only as one of those
// is available again; a replica that is unavailable below the
// partition counts against the bound too.
func TestRollingUpdateReplacesUpToMaxUnavailableAtATime(t *testing.T) {
	f := newFixture(t, func(s *domain.StatefulSetSpec) {
		s.Replicas, s.PodManagementPolicy = 4, domain.StatefulSetParallel
		s.UpdateStrategy = domain.StatefulSetUpdateStrategy{Type: domain.StatefulSetRollingUpdate, MaxUnavailable: domain.Percents(50)}
	})
	f.reconcile(t)
	f.ready("web-0", "web-1", "web-2", "web-3")
	f.reconcile(t)
	f.update(t, func(s *domain.StatefulSetSpec) { s.Template.Spec.Containers[0].Image = "nginx:2" })
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2~,web-3~")
	f.gone()
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2,web-3") // made again, not ready: no room
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2,web-3")
	f.ready("web-3")
	f.reconcile(t)
	f.expect(t, "web-0,web-1~,web-2,web-3")

	// Below a partition: web-0 not ready takes the only room of 1.
	g := newFixture(t, func(s *domain.StatefulSetSpec) {
		s.Replicas, s.PodManagementPolicy = 4, domain.StatefulSetParallel
		s.UpdateStrategy = domain.StatefulSetUpdateStrategy{Type: domain.StatefulSetRollingUpdate, MaxUnavailable: domain.Ints(1)}
	})
	g.reconcile(t)
	g.ready("web-1", "web-2", "web-3")
	two := int32(2)
	g.update(t, func(s *domain.StatefulSetSpec) {
		s.Template.Spec.Containers[0].Image = "nginx:2"
		s.UpdateStrategy.Partition = &two
	})
	g.reconcile(t)
	g.expect(t, "web-0,web-1,web-2,web-3")
	g.ready("web-0")
	g.reconcile(t)
	g.expect(t, "web-0,web-1,web-2,web-3~")
}

// TestAvailabilityWaitsForMinReadySeconds: a ready pod counts as
// available only after minReadySeconds, and the reconciler asks to come
// back then.
func TestAvailabilityWaitsForMinReadySeconds(t *testing.T) {
	f := newFixture(t, func(s *domain.StatefulSetSpec) { s.Replicas, s.MinReadySeconds = 1, 10 })
	f.reconcile(t)
	f.ready("web-0")
	if res := f.reconcile(t); res.RequeueAfter != 10*time.Second {
		t.Fatalf("requeue after %v", res.RequeueAfter)
	}
	if s := f.set(t); s.Status.ReadyReplicas != 1 || s.Status.AvailableReplicas != 0 {
		t.Fatalf("status %+v", s.Status)
	}
	f.clock.Step(10 * time.Second)
	f.reconcile(t)
	if s := f.set(t); s.Status.AvailableReplicas != 1 {
		t.Fatalf("status %+v", s.Status)
	}
}

// TestWatchesEveryEvent: every event of a StatefulSet but the status it
// records itself reaches it, and every event of a pod it controls but the
// steps no owner counts.
func TestWatchesEveryEvent(t *testing.T) {
	f := newFixture(t, nil)
	reconcilerstest.WatchesEveryEvent(t, f.r.Watches())
}

// TestOnDeleteReplacesOnlyDeletedPods: with OnDelete, a new template
// replaces no pod by itself; a pod deleted by hand comes back from it.
func TestOnDeleteReplacesOnlyDeletedPods(t *testing.T) {
	f := newFixture(t, func(s *domain.StatefulSetSpec) {
		s.Replicas = 2
		s.UpdateStrategy = domain.StatefulSetUpdateStrategy{Type: domain.StatefulSetOnDelete}
	})
	for _, n := range []string{"web-0", "web-1"} {
		f.reconcile(t)
		f.ready(n)
	}
	f.update(t, func(s *domain.StatefulSetSpec) { s.Template.Spec.Containers[0].Image = "nginx:2" })
	f.reconcile(t)
	f.reconcile(t)
	f.expect(t, "web-0,web-1")
	delete(f.pods.Pods, domain.Key{Namespace: "default", Name: "web-0"})
	f.reconcile(t)
	rev := Revision(f.set(t))
	if p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-0"}]; p.Spec.Containers[0].Image != "nginx:2" || p.Labels[domain.LabelControllerRevisionHash] != rev {
		t.Fatalf("web-0 came back as %v %v", p.Labels, p.Spec.Containers)
	}
	if p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-1"}]; p.Spec.Containers[0].Image != "nginx:1" {
		t.Fatalf("web-1 was replaced: %v", p.Spec.Containers)
	}
}

// TestAnOrphanPodReachesTheStatefulSetThatAdoptsIt: once a reconcile has
// read a StatefulSet, a pod made without a controller with labels its
// selector matches reaches it as it comes (Watches.Adopts), and so does
// an orphaned revision; the reconcile's claim decides whether the pod is
// one of its ordinals.
func TestAnOrphanPodReachesTheStatefulSetThatAdoptsIt(t *testing.T) {
	f := newFixture(t, nil)
	f.reconcile(t)
	orphan := reconcilerstest.Record(t, "pod/default/web-7", domain.PodCreated{Namespace: "default", Name: "web-7", Labels: map[string]string{"app": "web"}})
	if got := reconcilerstest.Strings(f.r.Watches().KeysFor(orphan)); !slices.Equal(got, []string{"statefulset/default/web"}) {
		t.Errorf("an orphan of the StatefulSet's labels reaches %v, want the StatefulSet", got)
	}
	// An orphaned revision of its labels too, as Kubernetes' controller
	// looks at a revision's new owner when it comes.
	rev := reconcilerstest.Record(t, "controllerrevision/default/web-abc", domain.ControllerRevisionCreated{Namespace: "default", Name: "web-abc", Labels: map[string]string{"app": "web"}})
	if got := reconcilerstest.Strings(f.r.Watches().KeysFor(rev)); !slices.Equal(got, []string{"statefulset/default/web"}) {
		t.Errorf("an orphaned revision of the StatefulSet's labels reaches %v, want the StatefulSet", got)
	}
}
