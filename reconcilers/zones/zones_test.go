package zones

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"herd/adapters/mockruntime"
	"herd/domain"
	"herd/events"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// hooked is the mock runtime with a hook run before Start: to fail it, or
// to change the world while a pod is being started.
type hooked struct {
	*mockruntime.Runtime
	beforeStart func(p domain.Pod) error
}

var _ Runtime = (*hooked)(nil)

func (h *hooked) Start(ctx context.Context, p domain.Pod) (domain.RuntimeStatus, error) {
	if h.beforeStart != nil {
		if err := h.beforeStart(p); err != nil {
			return domain.RuntimeStatus{}, err
		}
	}
	return h.Runtime.Start(ctx, p)
}

type fixture struct {
	*reconcilerstest.Env
	rt *hooked
	// runtime runs the pods of nodes without an agent: rt unless a test
	// says otherwise.
	runtime Runtime
	r       *Reconciler
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	env := reconcilerstest.New(t)
	mock, err := mockruntime.New(mockruntime.Config{}, env.Clock)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{Env: env, rt: &hooked{Runtime: mock}}
	f.runtime = f.rt
	runtimes := RuntimesFunc(func(n domain.Node) (Runtime, bool) {
		if n.RunsOwnPods() {
			return nil, false
		}
		return f.runtime, true
	})
	r, err := New(Config{ResyncPeriod: DefaultResyncPeriod}, Local{Commands: env.Writer.PodCommands(), Pods: env.Pods.Remembering(env.Writer), Nodes: env.Nodes},
		runtimes, env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	f.r = r
	return f
}

// network is the address IPAM gives default/name in these tests.
func network(ip string) domain.PodNetwork {
	return domain.PodNetwork{Pool: "10.88.0.0/16", IP: ip, PrefixLength: 16, Gateway: "10.88.0.1"}
}

// addressed creates default/name as c says and gives it an address, as
// the scheduler and IPAM would.
func (f *fixture) addressed(name string, c domain.CreatePod, ip string) domain.Pod {
	return f.Pod(name, c, domain.AssignPodIP{Network: network(ip)})
}

func (f *fixture) reconcile(t *testing.T, key reconcilers.Key) {
	t.Helper()
	res, err := f.r.Reconcile(t.Context(), key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	if res != (reconcilers.Result{}) {
		t.Errorf("%s: %+v", key, res)
	}
}

func (f *fixture) ops(name string) []mockruntime.Op {
	p, _ := f.rt.Pod("default", name)
	return p.Ops()
}

func TestStartsPodsOnTheRuntime(t *testing.T) {
	f := newFixture(t)
	f.Node("n1", domain.RegisterNode{Registration: domain.Registration{Name: "n1", Kind: domain.KindLinux,
		Addresses: []domain.Address{{Type: "Hostname", Address: "n1"}, {Type: "InternalIP", Address: "192.0.2.10"}}}},
		reconcilerstest.Report(domain.ConditionTrue))
	c := reconcilerstest.CreatePod("web", "n1", 30)
	c.Spec.Containers = append(c.Spec.Containers, domain.Container{Name: "sidecar", Image: "envoy"})
	f.addressed("web", c, "10.88.0.2")
	f.SetTime(3)
	f.reconcile(t, reconcilerstest.PodKey("web"))

	p, _ := f.GetPod("web")
	running := &domain.ContainerRunning{StartedAt: reconcilerstest.At(3)}
	want := domain.PodStatus{
		Phase: domain.PodRunning, HostIP: "192.0.2.10", PodIP: "10.88.0.2", StartTime: reconcilerstest.At(3),
		Conditions: []domain.PodCondition{
			{Type: domain.PodConditionScheduled, Status: domain.ConditionTrue, LastTransitionTime: reconcilerstest.At(0)},
			{Type: domain.PodConditionIPAllocated, Status: domain.ConditionTrue, Reason: domain.ReasonIPAllocated,
				Message: "10.88.0.2 from pool 10.88.0.0/16", LastTransitionTime: reconcilerstest.At(0)},
			{Type: domain.PodConditionReady, Status: domain.ConditionTrue, LastTransitionTime: reconcilerstest.At(3)},
		},
		ContainerStatuses: []domain.ContainerStatus{
			{Name: "app", Image: "busybox", Ready: true, State: domain.ContainerState{Running: running}},
			{Name: "sidecar", Image: "envoy", Ready: true, State: domain.ContainerState{Running: running}},
		},
	}
	if diff := cmp.Diff(want, p.Status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]mockruntime.Op{mockruntime.OpProvision, mockruntime.OpStart}, f.ops("web")); diff != "" {
		t.Errorf("runtime (-want +got):\n%s", diff)
	}
	// Level-based: again changes nothing.
	f.SetTime(10)
	f.reconcile(t, reconcilerstest.PodKey("web"))
	f.reconcile(t, reconcilerstest.NodeKey("n1"))
	if diff := cmp.Diff([]string{"PodCreated", "PodScheduled", "PodIPAssigned", "PodStatusUpdated"}, f.PodTypes("web")); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestWaitsForAReadyNode(t *testing.T) {
	f := newFixture(t)
	f.Node("n1", domain.RegisterNode{Registration: domain.Registration{Name: "n1", Kind: domain.KindLinux}})
	f.addressed("web", reconcilerstest.CreatePod("web", "n1", 30), "10.88.0.2")
	f.addressed("orphan", reconcilerstest.CreatePod("orphan", "nowhere", 30), "10.88.0.3")
	f.reconcile(t, reconcilerstest.PodKey("web"))
	f.reconcile(t, reconcilerstest.PodKey("orphan"))
	if ops := f.ops("web"); len(ops) != 0 {
		t.Fatalf("started on a node that never reported: %v", ops)
	}
	f.SetTime(4)
	f.Node("n1", reconcilerstest.Report(domain.ConditionTrue))
	var keys []string
	for _, rec := range f.Records(0) {
		keys = append(keys, reconcilerstest.Strings(f.r.Watches().KeysFor(rec))...)
	}
	if diff := cmp.Diff([]string{"node/n1", "pod/default/web", "pod/default/orphan", "node/n1"}, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	f.reconcile(t, reconcilerstest.NodeKey("n1"))
	if p, _ := f.GetPod("web"); p.Status.Phase != domain.PodRunning || !p.Status.StartTime.Equal(reconcilerstest.At(4)) {
		t.Errorf("after the node became Ready: %s since %s", p.Status.Phase, p.Status.StartTime)
	}
}

func TestLeavesAlone(t *testing.T) {
	f := newFixture(t)
	f.ReadyNode("n1", nil)
	f.ReadyNode("a1", map[string]string{domain.LabelRuntime: domain.RuntimeAgent})
	f.addressed("agents", reconcilerstest.CreatePod("agents", "a1", 30), "10.88.0.2")
	f.Pod("unbound", reconcilerstest.CreatePod("unbound", "", 30))
	held := reconcilerstest.CreatePod("leaving", "n1", 30)
	f.Pod("leaving", held, domain.AssignPodIP{Network: network("10.88.0.3")}, domain.DeletePod{})
	f.Pod("done", reconcilerstest.CreatePod("done", "n1", 30), domain.AssignPodIP{Network: network("10.88.0.4")}, domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodSucceeded}})
	if _, err := f.Writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: "kubelets"},
		domain.ObservePod{Namespace: "default", Name: "kubelets", Spec: domain.PodSpec{NodeName: "n1"}, Status: domain.PodStatus{Phase: domain.PodPending}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agents", "unbound", "leaving", "done", "kubelets", "never-seen"} {
		f.reconcile(t, reconcilerstest.PodKey(name))
		if _, ok := f.rt.Pod("default", name); ok {
			t.Errorf("%s: herd's runtime touched it", name)
		}
	}
	f.reconcile(t, reconcilerstest.NodeKey("a1"))
	keys, err := f.r.Resync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"pod/default/agents"}, reconcilerstest.Strings(keys)); diff != "" {
		t.Errorf("resync (-want +got):\n%s", diff)
	}
	for _, key := range []string{"pod/x", "n1", "node/", "namespace/default"} {
		if f.r.Watches().Scope().Takes(reconcilerstest.Key(key)) {
			t.Errorf("the zones reconciler takes %q", key)
		}
	}
	if got := f.r.Watches().KeysFor(events.Record{Stream: "pod/default/web", Type: "PodStatusUpdated"}); got != nil {
		t.Errorf("a status update: %v", got)
	}
}

func TestRuntimeFailures(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		startErr    error
		wantReason  string
		wantMessage string
	}{
		{
			name:        "provisioning fails",
			annotations: map[string]string{mockruntime.AnnotationShutdownSeconds: "later"},
			wantReason:  ReasonProvisionFailed,
			wantMessage: `pod default/web: annotation mock.herd.dev/shutdown-seconds "later": want whole seconds (negative to ignore shutdown)`,
		},
		{
			name:        "starting fails",
			startErr:    errors.New("zoneadm boot: exit status 1"),
			wantReason:  ReasonStartFailed,
			wantMessage: "zoneadm boot: exit status 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.rt.beforeStart = func(domain.Pod) error { return tt.startErr }
			f.ReadyNode("n1", nil)
			c := reconcilerstest.CreatePod("web", "n1", 30)
			c.Annotations = tt.annotations
			f.addressed("web", c, "10.88.0.2")
			f.reconcile(t, reconcilerstest.PodKey("web"))
			p, _ := f.GetPod("web")
			if p.Status.Phase != domain.PodFailed || p.Status.Reason != tt.wantReason || p.Status.Message != tt.wantMessage {
				t.Errorf("status: %s %q %q, want Failed %q %q", p.Status.Phase, p.Status.Reason, p.Status.Message, tt.wantReason, tt.wantMessage)
			}
			if c, _ := p.Condition(domain.PodConditionReady); c.Status != domain.ConditionFalse {
				t.Errorf("Ready %s", c.Status)
			}
			// A failed pod is finished: it is not tried again.
			f.reconcile(t, reconcilerstest.PodKey("web"))
			if n := len(f.PodTypes("web")); n != 4 {
				t.Errorf("events %v", f.PodTypes("web"))
			}
		})
	}
}

func TestAPodThatLeftWhileStartingIsRemovedAgain(t *testing.T) {
	f := newFixture(t)
	f.ReadyNode("n1", nil)
	f.addressed("web", reconcilerstest.CreatePod("web", "n1", 30), "10.88.0.2")
	f.rt.beforeStart = func(domain.Pod) error {
		// The pod is deleted, and the termination reconciler finishes
		// with it, before this start reports.
		f.Pod("web", domain.DeletePod{}, domain.RecordTermination{Step: domain.StepStopped},
			domain.RecordTermination{Step: domain.StepDeprovisioned}, domain.FinalizePod{Reason: "Terminated"})
		return nil
	}
	f.reconcile(t, reconcilerstest.PodKey("web"))
	want := []mockruntime.Op{mockruntime.OpProvision, mockruntime.OpStart, mockruntime.OpStopped, mockruntime.OpDeprovision}
	if diff := cmp.Diff(want, f.ops("web")); diff != "" {
		t.Errorf("runtime (-want +got):\n%s", diff)
	}
	if types := f.PodTypes("web"); strings.Contains(strings.Join(types, ","), "PodStatusUpdated") {
		t.Errorf("a status was reported for a pod that had left: %v", types)
	}
}

func TestARuntimeThatForgotItsPodsStartsThemAgain(t *testing.T) {
	f := newFixture(t)
	f.ReadyNode("n1", nil)
	f.addressed("web", reconcilerstest.CreatePod("web", "n1", 30), "10.88.0.2")
	f.reconcile(t, reconcilerstest.PodKey("web"))
	// herd restarted: the new mock runtime holds nothing.
	mock, err := mockruntime.New(mockruntime.Config{}, f.Clock)
	if err != nil {
		t.Fatal(err)
	}
	f.rt.Runtime = mock
	f.SetTime(50)
	keys, err := f.r.Resync(t.Context())
	if err != nil || !cmp.Equal(reconcilerstest.Strings(keys), []string{"pod/default/web"}) {
		t.Fatalf("resync: %v %v", keys, err)
	}
	f.reconcile(t, reconcilerstest.PodKey("web"))
	if p, _ := f.GetPod("web"); p.Status.Phase != domain.PodRunning || !p.Status.StartTime.Equal(reconcilerstest.At(50)) {
		t.Errorf("%s since %s", p.Status.Phase, p.Status.StartTime)
	}
	if diff := cmp.Diff([]mockruntime.Op{mockruntime.OpProvision, mockruntime.OpStart}, f.ops("web")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWaitsForItsAddress(t *testing.T) {
	f := newFixture(t)
	f.ReadyNode("n1", nil)
	f.Pod("web", reconcilerstest.CreatePod("web", "n1", 30))
	f.reconcile(t, reconcilerstest.PodKey("web"))
	if _, ok := f.rt.Pod("default", "web"); ok {
		t.Fatal("provisioned before IPAM gave the pod its address")
	}
	head := f.Head()
	f.SetTime(2)
	f.Pod("web", domain.AssignPodIP{Network: network("10.88.0.7")})
	var keys []string
	for _, rec := range f.Records(head) {
		keys = append(keys, reconcilerstest.Strings(f.r.Watches().KeysFor(rec))...)
	}
	if diff := cmp.Diff([]string{"pod/default/web"}, keys); diff != "" {
		t.Fatalf("the address does not wake the pod (-want +got):\n%s", diff)
	}
	f.reconcile(t, reconcilerstest.Key(keys[0]))
	p, _ := f.GetPod("web")
	if p.Status.Phase != domain.PodRunning || p.Status.PodIP != "10.88.0.7" {
		t.Errorf("%s with IP %q, want Running with the address IPAM gave", p.Status.Phase, p.Status.PodIP)
	}
}

func TestAnAgentsReconcilerKeepsToItsNode(t *testing.T) {
	env := reconcilerstest.New(t)
	mock, err := mockruntime.New(mockruntime.Config{}, env.Clock)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{ResyncPeriod: DefaultResyncPeriod, Node: "a1"}, Local{Commands: env.Writer.PodCommands(), Pods: env.Pods.Remembering(env.Writer), Nodes: env.Nodes},
		RuntimesFunc(func(domain.Node) (Runtime, bool) { return mock, true }), env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	env.ReadyNode("a1", nil)
	env.ReadyNode("a2", nil)
	env.Pod("mine", reconcilerstest.CreatePod("mine", "a1", 30), domain.AssignPodIP{Network: network("10.88.0.2")})
	env.Pod("theirs", reconcilerstest.CreatePod("theirs", "a2", 30), domain.AssignPodIP{Network: network("10.88.0.3")})
	keys, err := r.Resync(t.Context())
	if err != nil || !cmp.Equal(reconcilerstest.Strings(keys), []string{"pod/default/mine"}) {
		t.Fatalf("resync: %v %v", keys, err)
	}
	for _, key := range []string{"pod/default/mine", "pod/default/theirs", "node/a2"} {
		if _, err := r.Reconcile(t.Context(), reconcilerstest.Key(key)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := mock.Pod("default", "theirs"); ok {
		t.Error("an agent ran another node's pod")
	}
	if p, _ := env.GetPod("mine"); p.Status.Phase != domain.PodRunning {
		t.Errorf("its own pod: %s", p.Status.Phase)
	}
	if _, err := New(Config{}, nil, nil, nil, zap.NewNop()); err == nil || !strings.Contains(err.Error(), "zones resync period 0s") {
		t.Errorf("a zero resync period: %v", err)
	}
}

// countingPods is Pods that counts its lists.
type countingPods struct {
	Pods
	lists int
}

func (c *countingPods) List(ctx context.Context, node string) ([]domain.Pod, error) {
	c.lists++
	return c.Pods.List(ctx, node)
}

// TestANodeWhosePodsCannotRunHereListsNone: a node's key lists its pods
// only when they can run in this process: not for a node that is gone,
// not Ready, or whose runtime is elsewhere (a kubelet's, as a fleet
// registers), and still for a Ready node whose runtime is here, whose
// pod then starts.
func TestANodeWhosePodsCannotRunHereListsNone(t *testing.T) {
	f := newFixture(t)
	pods := &countingPods{Pods: Local{Commands: f.Writer.PodCommands(), Pods: f.Pods.Remembering(f.Writer), Nodes: f.Nodes}}
	r, err := New(Config{ResyncPeriod: DefaultResyncPeriod}, pods, RuntimesFunc(func(n domain.Node) (Runtime, bool) {
		return f.rt, n.Kind != domain.KindKubelet
	}), f.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	f.Node("kubelet-1", domain.RegisterNode{Registration: domain.Registration{Name: "kubelet-1", Kind: domain.KindKubelet}},
		reconcilerstest.Report(domain.ConditionTrue))
	f.Node("unready", domain.RegisterNode{Registration: domain.Registration{Name: "unready", Kind: domain.KindLinux}})
	f.ReadyNode("n1", nil)
	f.addressed("on-kubelet", reconcilerstest.CreatePod("on-kubelet", "kubelet-1", 30), "10.88.0.2")
	f.addressed("waiting", reconcilerstest.CreatePod("waiting", "unready", 30), "10.88.0.3")
	f.addressed("web", reconcilerstest.CreatePod("web", "n1", 30), "10.88.0.4")
	for _, node := range []string{"kubelet-1", "unready", "gone"} {
		if res, err := r.Reconcile(t.Context(), reconcilerstest.NodeKey(node)); err != nil || res != (reconcilers.Result{}) {
			t.Fatalf("node %s: %+v, %v", node, res, err)
		}
	}
	if pods.lists != 0 {
		t.Errorf("%d lists of pods for nodes whose pods cannot run here, want none", pods.lists)
	}
	if ops := append(f.ops("on-kubelet"), f.ops("waiting")...); len(ops) != 0 {
		t.Errorf("pods started on a kubelet's or an unready node: %v", ops)
	}
	if _, err := r.Reconcile(t.Context(), reconcilerstest.NodeKey("n1")); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.GetPod("web"); pods.lists != 1 || p.Status.Phase != domain.PodRunning {
		t.Errorf("a Ready node with its runtime here: %d lists, its pod %s; want one list and Running", pods.lists, p.Status.Phase)
	}
}

// TestAPodMarkedNotReadyWhileItsNodeWasIsReadyAgainWhenTheNodeIs: its
// node fell silent and herd marked the pod not ready (podready); the pod
// ran on. Once the node reports Ready, the pod is Ready again, for that
// report, without being started again; a mark that lands after the node
// is back is undone on the pod's own key.
func TestAPodMarkedNotReadyWhileItsNodeWasIsReadyAgainWhenTheNodeIs(t *testing.T) {
	f := newFixture(t)
	f.ReadyNode("n1", nil)
	f.addressed("web", reconcilerstest.CreatePod("web", "n1", 30), "10.88.0.2")
	f.reconcile(t, reconcilerstest.PodKey("web"))
	started, _ := f.GetPod("web")

	f.SetTime(40)
	f.Node("n1", reconcilerstest.MarkSilent())
	f.Pod("web", domain.MarkPodNotReady{Node: "n1"})
	f.reconcile(t, reconcilerstest.NodeKey("n1"))
	if p, _ := f.GetPod("web"); domain.PodReady(p) {
		t.Fatal("Ready again while its node is silent")
	}

	f.SetTime(50)
	f.Node("n1", reconcilerstest.Report(domain.ConditionTrue))
	f.reconcile(t, reconcilerstest.NodeKey("n1"))
	p, _ := f.GetPod("web")
	c, _ := p.Condition(domain.PodConditionReady)
	if c.Status != domain.ConditionTrue || c.LastTransitionTime != reconcilerstest.At(50) {
		t.Errorf("Ready after its node came back: %+v, want True since 50 s", c)
	}
	if !p.Status.StartTime.Equal(started.Status.StartTime) || !cmp.Equal(p.Status.ContainerStatuses, started.Status.ContainerStatuses) {
		t.Errorf("the pod's start and containers changed: %+v, want %+v", p.Status, started.Status)
	}
	if diff := cmp.Diff([]mockruntime.Op{mockruntime.OpProvision, mockruntime.OpStart}, f.ops("web")); diff != "" {
		t.Errorf("runtime (-want +got):\n%s", diff)
	}
	back := f.Last(domain.NodeStream("n1"), domain.NodeConditionChanged{}.EventType())
	if rec := f.Last(domain.PodStream("default", "web"), domain.PodStatusUpdated{}.EventType()); rec.Metadata.CausationID != "" && rec.Metadata.CausationID != back.ID {
		t.Errorf("ready again: cause %q, want the node's Ready turning True %q", rec.Metadata.CausationID, back.ID)
	}

	// A mark that lands after the node came back.
	f.Pod("web", domain.MarkPodNotReady{Node: "n1"})
	marked := f.Last(domain.PodStream("default", "web"), domain.PodMarkedNotReady{}.EventType())
	if keys := reconcilerstest.Strings(f.r.Watches().KeysFor(marked)); !cmp.Equal(keys, []string{"pod/default/web"}) {
		t.Errorf("a mark wakes %v, want the pod", keys)
	}
	f.reconcile(t, reconcilerstest.PodKey("web"))
	if p, _ := f.GetPod("web"); !domain.PodReady(p) {
		t.Error("a mark that landed after the node came back stayed")
	}
}
