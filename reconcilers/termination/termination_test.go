package termination

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"herd/adapters/mockruntime"
	"herd/domain"
	"herd/events"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// fixture is one test's log, mock runtime and reconciler.
type fixture struct {
	*reconcilerstest.Env
	mock *mockruntime.Runtime
	r    *Reconciler
}

// newFixture runs pods of nodes without their own agent on the mock, as
// herd serve does by default. A long poll period makes the requeues show
// the deadlines themselves.
func newFixture(tt testing.TB, cfg Config) *fixture {
	tt.Helper()
	env := reconcilerstest.New(tt)
	mock, err := mockruntime.New(mockruntime.Config{}, env.Clock)
	if err != nil {
		tt.Fatal(err)
	}
	runtimes := RuntimesFunc(func(n domain.Node) (Runtime, bool) {
		if n.RunsOwnPods() || n.Kind == domain.KindKubelet {
			return nil, false
		}
		return mock, true
	})
	// As herd serve wires it: the pod lists from the Writer's memory.
	r, err := New(cfg, env.Writer.PodCommands(), env.Pods.Remembering(env.Writer), env.Nodes, runtimes, env.Clock, zap.NewNop())
	if err != nil {
		tt.Fatal(err)
	}
	return &fixture{Env: env, mock: mock, r: r}
}

func testConfig() Config {
	cfg := DefaultConfig()
	cfg.PollPeriod = time.Hour
	return cfg
}

// running creates default/name on node with the given grace period and
// annotations and starts it on the mock, as the zones reconciler would.
func (f *fixture) running(t *testing.T, name, node string, grace int64, annotations map[string]string) domain.Pod {
	t.Helper()
	create := reconcilerstest.CreatePod(name, node, grace)
	create.Annotations = annotations
	p := f.Pod(name, create)
	if err := f.mock.Provision(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := f.mock.Start(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// reconcile reconciles default/name at second s.
func (f *fixture) reconcile(t *testing.T, s int, name string) reconcilers.Result {
	t.Helper()
	f.SetTime(s)
	res, err := f.r.Reconcile(t.Context(), reconcilerstest.PodKey(name))
	if err != nil {
		t.Fatalf("reconcile at %ds: %v", s, err)
	}
	return res
}

func grace(s int64) *int64 { return &s }

// created is the start of every bound pod's stream.
var created = []string{"PodCreated", "PodScheduled"}

func types(more ...string) []string { return append(append([]string{}, created...), more...) }

func TestTerminationOnTheRuntime(t *testing.T) {
	type pass struct {
		at          int
		wantRequeue time.Duration
	}
	type deletion struct {
		at    int
		grace *int64
	}
	tests := []struct {
		name        string
		annotations map[string]string
		deletes     []deletion
		passes      []pass
		wantTypes   []string
		wantOps     []mockruntime.Op
		wantDeleted domain.PodDeletion
	}{
		{
			name:        "shut down inside the grace period",
			annotations: map[string]string{mockruntime.AnnotationShutdownSeconds: "10"},
			deletes:     []deletion{{at: 0}},
			passes:      []pass{{at: 0, wantRequeue: 30 * time.Second}, {at: 9, wantRequeue: 21 * time.Second}, {at: 10}},
			wantTypes:   types("PodDeletionRequested", "PodShutdownRequested", "PodStopped", "PodDeprovisioned", "PodFinalized"),
			wantOps:     []mockruntime.Op{"Provision", "Start", "Shutdown", "Stopped", "Deprovision"},
			wantDeleted: domain.PodDeletion{RequestedAt: reconcilerstest.At(0), GracePeriodSeconds: 30, Deadline: reconcilerstest.At(30),
				ShutdownRequestedAt: reconcilerstest.At(0), StoppedAt: reconcilerstest.At(10), DeprovisionedAt: reconcilerstest.At(10)},
		},
		{
			name:      "stops at once by default",
			deletes:   []deletion{{at: 0}},
			passes:    []pass{{at: 0}},
			wantTypes: types("PodDeletionRequested", "PodShutdownRequested", "PodStopped", "PodDeprovisioned", "PodFinalized"),
			wantOps:   []mockruntime.Op{"Provision", "Start", "Shutdown", "Stopped", "Deprovision"},
			wantDeleted: domain.PodDeletion{RequestedAt: reconcilerstest.At(0), GracePeriodSeconds: 30, Deadline: reconcilerstest.At(30),
				ShutdownRequestedAt: reconcilerstest.At(0), StoppedAt: reconcilerstest.At(0), DeprovisionedAt: reconcilerstest.At(0)},
		},
		{
			name:        "halted after it",
			annotations: map[string]string{mockruntime.AnnotationShutdownSeconds: "-1"},
			deletes:     []deletion{{at: 0}},
			passes:      []pass{{at: 0, wantRequeue: 30 * time.Second}, {at: 29, wantRequeue: time.Second}, {at: 30}},
			wantTypes:   types("PodDeletionRequested", "PodShutdownRequested", "PodHalted", "PodStopped", "PodDeprovisioned", "PodFinalized"),
			wantOps:     []mockruntime.Op{"Provision", "Start", "Shutdown", "Halt", "Stopped", "Deprovision"},
			wantDeleted: domain.PodDeletion{RequestedAt: reconcilerstest.At(0), GracePeriodSeconds: 30, Deadline: reconcilerstest.At(30),
				ShutdownRequestedAt: reconcilerstest.At(0), HaltedAt: reconcilerstest.At(30), StoppedAt: reconcilerstest.At(30), DeprovisionedAt: reconcilerstest.At(30)},
		},
		{
			name:        "a second delete with a shorter grace period brings the halt forward",
			annotations: map[string]string{mockruntime.AnnotationShutdownSeconds: "-1"},
			deletes:     []deletion{{at: 0}, {at: 2, grace: grace(5)}},
			passes:      []pass{{at: 0, wantRequeue: 30 * time.Second}, {at: 2, wantRequeue: 5 * time.Second}, {at: 7}},
			wantTypes:   types("PodDeletionRequested", "PodShutdownRequested", "PodDeletionRequested", "PodHalted", "PodStopped", "PodDeprovisioned", "PodFinalized"),
			wantOps:     []mockruntime.Op{"Provision", "Start", "Shutdown", "Halt", "Stopped", "Deprovision"},
			wantDeleted: domain.PodDeletion{RequestedAt: reconcilerstest.At(0), GracePeriodSeconds: 5, Deadline: reconcilerstest.At(7),
				ShutdownRequestedAt: reconcilerstest.At(0), HaltedAt: reconcilerstest.At(7), StoppedAt: reconcilerstest.At(7), DeprovisionedAt: reconcilerstest.At(7)},
		},
		{
			name:        "grace period zero halts without asking",
			annotations: map[string]string{mockruntime.AnnotationShutdownSeconds: "-1"},
			deletes:     []deletion{{at: 3, grace: grace(0)}},
			passes:      []pass{{at: 3}},
			wantTypes:   types("PodDeletionRequested", "PodHalted", "PodStopped", "PodDeprovisioned", "PodFinalized"),
			wantOps:     []mockruntime.Op{"Provision", "Start", "Halt", "Stopped", "Deprovision"},
			wantDeleted: domain.PodDeletion{RequestedAt: reconcilerstest.At(3), Deadline: reconcilerstest.At(3),
				HaltedAt: reconcilerstest.At(3), StoppedAt: reconcilerstest.At(3), DeprovisionedAt: reconcilerstest.At(3)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, testConfig())
			f.ReadyNode("n1", nil)
			f.running(t, "web", "n1", 30, tt.annotations)
			deletes := tt.deletes
			for _, ps := range tt.passes {
				for len(deletes) > 0 && deletes[0].at <= ps.at {
					f.SetTime(deletes[0].at)
					f.Pod("web", domain.DeletePod{GracePeriodSeconds: deletes[0].grace})
					deletes = deletes[1:]
				}
				if got := f.reconcile(t, ps.at, "web"); got.RequeueAfter != ps.wantRequeue {
					t.Errorf("at %ds: requeue after %s, want %s", ps.at, got.RequeueAfter, ps.wantRequeue)
				}
			}
			if diff := cmp.Diff(tt.wantTypes, f.PodTypes("web")); diff != "" {
				t.Errorf("pod events (-want +got):\n%s", diff)
			}
			mp, _ := f.mock.Pod("default", "web")
			if diff := cmp.Diff(tt.wantOps, mp.Ops()); diff != "" {
				t.Errorf("runtime (-want +got):\n%s", diff)
			}
			p, _ := f.GetPod("web")
			if !p.Finalized || p.Deletion == nil {
				t.Fatalf("pod not finalized: %+v", p)
			}
			if diff := cmp.Diff(tt.wantDeleted, *p.Deletion); diff != "" {
				t.Errorf("deletion (-want +got):\n%s", diff)
			}
			// Once finalized, the key is quiet.
			if res := f.reconcile(t, 100, "web"); res != (reconcilers.Result{}) {
				t.Errorf("after finalization: %+v", res)
			}
		})
	}
}

func TestPollsWhileShuttingDown(t *testing.T) {
	cfg := DefaultConfig()
	f := newFixture(t, cfg)
	f.ReadyNode("n1", nil)
	f.running(t, "web", "n1", 30, map[string]string{mockruntime.AnnotationShutdownSeconds: "-1"})
	f.Pod("web", domain.DeletePod{})
	if res := f.reconcile(t, 0, "web"); res.RequeueAfter != cfg.PollPeriod {
		t.Errorf("requeue after %s, want the poll period %s", res.RequeueAfter, cfg.PollPeriod)
	}
	f.Clock.SetTime(reconcilerstest.At(29).Add(700 * time.Millisecond))
	res, err := f.r.Reconcile(t.Context(), reconcilerstest.PodKey("web"))
	if err != nil || res.RequeueAfter != 300*time.Millisecond {
		t.Errorf("just before the deadline: %+v %v, want a wake-up at the deadline", res, err)
	}
}

func TestNotTerminatingOrNotHerds(t *testing.T) {
	f := newFixture(t, testConfig())
	f.ReadyNode("n1", nil)
	f.running(t, "web", "n1", 30, nil)
	if _, err := f.Writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "kube-system", Name: "coredns"},
		domain.ObservePod{Namespace: "kube-system", Name: "coredns", Spec: domain.PodSpec{NodeName: "n1"}, Status: domain.PodStatus{Phase: domain.PodRunning}}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"pod/default/web", "pod/kube-system/coredns", "pod/default/never-seen", "node/n1"} {
		res, err := f.r.Reconcile(t.Context(), reconcilerstest.Key(key))
		if err != nil || res != (reconcilers.Result{}) {
			t.Errorf("%s: %+v %v", key, res, err)
		}
	}
	if diff := cmp.Diff(types(), f.PodTypes("web")); diff != "" {
		t.Errorf("a running pod was touched (-want +got):\n%s", diff)
	}
	if mp, _ := f.mock.Pod("default", "web"); mp.State.Phase != domain.RuntimeRunning {
		t.Errorf("runtime: %s", mp.State.Phase)
	}
	for _, key := range []string{"pod/default", "web", "pod/", "namespace/default"} {
		if f.r.Watches().Scope().Takes(reconcilerstest.Key(key)) {
			t.Errorf("the termination reconciler takes %q", key)
		}
	}
}

func TestShutdownRefusedHaltsAtTheDeadline(t *testing.T) {
	f := newFixture(t, testConfig())
	f.ReadyNode("n1", nil)
	f.running(t, "web", "n1", 30, nil)
	f.Pod("web", domain.SetPodMetadata{Annotations: map[string]string{mockruntime.AnnotationShutdownSeconds: "soon"}}, domain.DeletePod{})
	if res := f.reconcile(t, 1, "web"); res.RequeueAfter != 29*time.Second {
		t.Errorf("after a refused shutdown: %+v, want a wake-up at the deadline", res)
	}
	if res := f.reconcile(t, 30, "web"); res != (reconcilers.Result{}) {
		t.Errorf("at the deadline: %+v", res)
	}
	if diff := cmp.Diff(types("PodMetadataChanged", "PodDeletionRequested", "PodHalted", "PodStopped", "PodDeprovisioned", "PodFinalized"), f.PodTypes("web")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFinalizersHoldThePod(t *testing.T) {
	f := newFixture(t, testConfig())
	f.ReadyNode("n1", nil)
	create := reconcilerstest.CreatePod("web", "n1", 30)
	create.Finalizers = []string{"example.com/keep"}
	p := f.Pod("web", create)
	if err := f.mock.Provision(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	f.Pod("web", domain.DeletePod{})
	f.reconcile(t, 0, "web")
	got, _ := f.GetPod("web")
	if got.Finalized || got.Deletion.DeprovisionedAt.IsZero() {
		t.Fatalf("with a finalizer: finalized %v, deletion %+v", got.Finalized, got.Deletion)
	}
	f.reconcile(t, 5, "web")
	f.SetTime(6)
	f.Pod("web", domain.SetPodMetadata{})
	f.reconcile(t, 6, "web")
	want := types("PodDeletionRequested", "PodShutdownRequested", "PodStopped", "PodDeprovisioned", "PodMetadataChanged", "PodFinalized")
	if diff := cmp.Diff(want, f.PodTypes("web")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWaitsForTheNodesAgent(t *testing.T) {
	f := newFixture(t, testConfig())
	f.ReadyNode("n1", map[string]string{domain.LabelRuntime: domain.RuntimeAgent})
	f.Pod("web", reconcilerstest.CreatePod("web", "n1", 30), domain.DeletePod{})
	for _, s := range []int{0, 30, 300} {
		if res := f.reconcile(t, s, "web"); res != (reconcilers.Result{}) {
			t.Errorf("at %ds with the node Ready: %+v, want no timer (the agent's steps wake the key)", s, res)
		}
	}
	if _, ok := f.mock.Pod("default", "web"); ok {
		t.Error("herd's runtime touched a pod its node's agent runs")
	}
	f.SetTime(301)
	f.Pod("web", domain.RecordTermination{Step: domain.StepShutdownRequested}, domain.RecordTermination{Step: domain.StepStopped})
	if p := f.reconcile(t, 301, "web"); p != (reconcilers.Result{}) {
		t.Errorf("%+v", p)
	}
	if got, _ := f.GetPod("web"); got.Finalized {
		t.Fatal("finalized before the agent recorded it deprovisioned")
	}
	f.Pod("web", domain.RecordTermination{Step: domain.StepDeprovisioned})
	f.reconcile(t, 302, "web")
	want := types("PodDeletionRequested", "PodShutdownRequested", "PodStopped", "PodDeprovisioned", "PodFinalized")
	if diff := cmp.Diff(want, f.PodTypes("web")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPodGarbageCollection(t *testing.T) {
	agent := map[string]string{domain.LabelRuntime: domain.RuntimeAgent}
	tests := []struct {
		name string
		// setup prepares default/web, deleted at second 0.
		setup func(t *testing.T, f *fixture)
		// passes are the seconds at which the pod is reconciled; all but
		// the last leave it terminating.
		passes      []int
		wantRequeue []time.Duration
		wantReason  string
		wantTypes   []string
	}{
		{
			name: "a pod never scheduled, once its finalizers are gone",
			setup: func(t *testing.T, f *fixture) {
				create := reconcilerstest.CreatePod("web", "", 30)
				create.Finalizers = []string{"example.com/keep"}
				f.Pod("web", create, domain.DeletePod{})
				f.reconcile(t, 0, "web")
				f.Pod("web", domain.SetPodMetadata{})
			},
			passes:      []int{1},
			wantRequeue: []time.Duration{0},
			wantReason:  domain.ReasonDeletionByPodGC,
			wantTypes:   []string{"PodCreated", "PodDeletionRequested", "PodMetadataChanged", "PodFinalized"},
		},
		{
			name: "a pod whose node is gone",
			setup: func(t *testing.T, f *fixture) {
				f.ReadyNode("n1", agent)
				f.Pod("web", reconcilerstest.CreatePod("web", "n1", 30), domain.DeletePod{})
				f.Node("n1", domain.DeleteNode{})
			},
			passes:      []int{0},
			wantRequeue: []time.Duration{0},
			wantReason:  domain.ReasonDeletionByPodGC,
			wantTypes:   types("PodDeletionRequested", "PodFinalized"),
		},
		{
			name: "a pod on a kubelet's node, which runs none of herd's pods",
			setup: func(t *testing.T, f *fixture) {
				f.KindNode("k1", domain.KindKubelet, nil)
				f.Pod("web", reconcilerstest.CreatePod("web", "k1", 30), domain.DeletePod{})
			},
			passes:      []int{0},
			wantRequeue: []time.Duration{0},
			wantReason:  domain.ReasonDeletionByPodGC,
			wantTypes:   types("PodDeletionRequested", "PodFinalized"),
		},
		{
			name: "an unreachable node: the timeout counts from the deadline",
			setup: func(t *testing.T, f *fixture) {
				f.ReadyNode("n1", agent)
				f.Pod("web", reconcilerstest.CreatePod("web", "n1", 30), domain.DeletePod{})
				f.SetTime(10)
				f.Node("n1", reconcilerstest.MarkSilent())
			},
			passes:      []int{10, 89, 90},
			wantRequeue: []time.Duration{80 * time.Second, time.Second, 0},
			wantReason:  domain.ReasonDeletionByPodGC,
			wantTypes:   types("PodDeletionRequested", "PodFinalized"),
		},
		{
			name: "an unreachable node: or from when it stopped being Ready, if later",
			setup: func(t *testing.T, f *fixture) {
				f.ReadyNode("n1", agent)
				f.Pod("web", reconcilerstest.CreatePod("web", "n1", 30), domain.DeletePod{})
				f.reconcile(t, 0, "web")
				f.SetTime(100)
				f.Node("n1", reconcilerstest.Report(domain.ConditionFalse))
			},
			passes:      []int{100, 159, 160},
			wantRequeue: []time.Duration{60 * time.Second, time.Second, 0},
			wantReason:  domain.ReasonDeletionByPodGC,
			wantTypes:   types("PodDeletionRequested", "PodFinalized"),
		},
		{
			name: "a node that comes back in time keeps its pod",
			setup: func(t *testing.T, f *fixture) {
				f.ReadyNode("n1", agent)
				f.Pod("web", reconcilerstest.CreatePod("web", "n1", 30), domain.DeletePod{})
				f.SetTime(10)
				f.Node("n1", reconcilerstest.MarkSilent())
				f.reconcile(t, 10, "web")
				f.SetTime(80)
				f.Node("n1", reconcilerstest.Report(domain.ConditionTrue))
			},
			passes:      []int{80, 200},
			wantRequeue: []time.Duration{0, 0},
			wantTypes:   types("PodDeletionRequested"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, testConfig())
			tt.setup(t, f)
			for i, s := range tt.passes {
				if res := f.reconcile(t, s, "web"); res.RequeueAfter != tt.wantRequeue[i] {
					t.Errorf("at %ds: requeue after %s, want %s", s, res.RequeueAfter, tt.wantRequeue[i])
				}
			}
			if diff := cmp.Diff(tt.wantTypes, f.PodTypes("web")); diff != "" {
				t.Errorf("pod events (-want +got):\n%s", diff)
			}
			p, _ := f.GetPod("web")
			if got := finalReason(t, f, "web"); got != tt.wantReason {
				t.Errorf("finalized with reason %q, want %q (pod %+v)", got, tt.wantReason, p.Deletion)
			}
		})
	}
}

func TestANodeThatBecameUnreachableWakesItsPodsGC(t *testing.T) {
	f := newFixture(t, testConfig())
	f.ReadyNode("a1", map[string]string{domain.LabelRuntime: domain.RuntimeAgent})
	f.Pod("web", reconcilerstest.CreatePod("web", "a1", 30), domain.DeletePod{})
	f.Pod("db", reconcilerstest.CreatePod("db", "a1", 10), domain.DeletePod{})
	f.Pod("idle", reconcilerstest.CreatePod("idle", "a1", 30))
	if res := f.reconcile(t, 0, "web"); res != (reconcilers.Result{}) {
		t.Fatalf("with a1 Ready: %+v", res)
	}
	f.SetTime(45)
	f.Node("a1", reconcilerstest.MarkSilent())
	res, err := f.r.Reconcile(t.Context(), reconcilerstest.NodeKey("a1"))
	if err != nil || res.RequeueAfter != 60*time.Second {
		t.Fatalf("the node's pass: %+v %v, want a wake-up at 09:01:45", res, err)
	}
	f.SetTime(105)
	if res, err := f.r.Reconcile(t.Context(), reconcilerstest.NodeKey("a1")); err != nil || res != (reconcilers.Result{}) {
		t.Fatalf("at the GC time: %+v %v", res, err)
	}
	for name, want := range map[string]string{"web": domain.ReasonDeletionByPodGC, "db": domain.ReasonDeletionByPodGC, "idle": ""} {
		if got := finalReason(t, f, name); got != want {
			t.Errorf("%s: finalized with %q, want %q", name, got, want)
		}
	}
}

// finalReason is the reason of the pod's PodFinalized event, "" if none.
func finalReason(t *testing.T, f *fixture, name string) string {
	t.Helper()
	recs, err := f.Store.ReadStream(t.Context(), f.Store.DB(), domain.PodStream("default", name), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if rec.Type != "PodFinalized" {
			continue
		}
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			t.Fatal(err)
		}
		return ev.(domain.PodFinalized).Reason
	}
	return ""
}

func TestOrphansOfADeletedNode(t *testing.T) {
	f := newFixture(t, testConfig())
	f.ReadyNode("n1", nil)
	f.ReadyNode("n2", nil)
	f.running(t, "web", "n1", 30, nil)
	f.running(t, "db", "n1", 30, nil)
	f.running(t, "other", "n2", 30, nil)
	kept := reconcilerstest.CreatePod("kept", "n1", 30)
	kept.Finalizers = []string{"example.com/keep"}
	f.Pod("kept", kept)
	f.Node("n1", domain.DeleteNode{})

	keys, err := f.r.Resync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"node/n1"}, reconcilerstest.Strings(keys)); diff != "" {
		t.Errorf("resync keys (-want +got):\n%s", diff)
	}
	if _, err := f.r.Reconcile(t.Context(), reconcilerstest.NodeKey("n1")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web", "db"} {
		want := types("PodDisruptionTargeted", "PodDeletionRequested", "PodFinalized")
		if diff := cmp.Diff(want, f.PodTypes(name)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		p, _ := f.GetPod(name)
		if c, _ := p.Condition(domain.PodConditionDisruptionTarget); c.Reason != domain.ReasonDeletionByPodGC || c.Message != "PodGC: node no longer exists" {
			t.Errorf("%s: DisruptionTarget %+v", name, c)
		}
		if got := finalReason(t, f, name); got != domain.ReasonDeletionByPodGC {
			t.Errorf("%s: reason %q", name, got)
		}
	}
	if diff := cmp.Diff(types(), f.PodTypes("other")); diff != "" {
		t.Errorf("a pod of another node was touched (-want +got):\n%s", diff)
	}
	// Finalizers hold an orphan too; it waits as Terminating.
	p, _ := f.GetPod("kept")
	if p.Finalized || !p.Terminating() {
		t.Errorf("kept: finalized %v terminating %v", p.Finalized, p.Terminating())
	}
	keys, err = f.r.Resync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"pod/default/kept", "node/n1"}, reconcilerstest.Strings(keys)); diff != "" {
		t.Errorf("resync keys after the orphans went (-want +got):\n%s", diff)
	}
}

func TestKeysFor(t *testing.T) {
	tests := []struct {
		stream, typ string
		want        []string
	}{
		{"pod/default/web", "PodDeletionRequested", []string{"pod/default/web"}},
		{"pod/default/web", "PodDeprovisioned", []string{"pod/default/web"}},
		{"pod/default/web", "PodMetadataChanged", []string{"pod/default/web"}},
		{"pod/default/web", "PodStatusUpdated", nil},
		{"pod/default/web", "PodFinalized", nil},
		{"node/n1", "NodeDeleted", []string{"node/n1"}},
		{"node/n1", "NodeBecameNotReady", []string{"node/n1"}},
		{"node/n1", "NodeLabelsChanged", []string{"node/n1"}},
		{"node/n1", "HeartbeatRecorded", nil},
		{"fleet/health", "FleetDisruptionStarted", nil},
	}
	f := newFixture(t, testConfig())
	for _, tt := range tests {
		t.Run(tt.stream+" "+tt.typ, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, reconcilerstest.Strings(f.r.Watches().KeysFor(events.Record{Stream: tt.stream, Type: tt.typ}))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	err := Config{PodGCTimeout: -time.Second, PollPeriod: time.Second}.Validate()
	if err == nil {
		t.Fatal("a bad configuration passed")
	}
	for _, want := range []string{"--pod-gc-timeout -1s", "termination resync period 0s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
	if _, err := New(Config{}, nil, nil, nil, nil, nil, zap.NewNop()); err == nil {
		t.Error("New accepted a zero configuration")
	}
}
