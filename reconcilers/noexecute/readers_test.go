package noexecute

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// fakeNodes is a NodeReader over a fixed set of nodes.
type fakeNodes struct {
	nodes map[string]domain.Node
	err   error // what Get fails with, if set
}

var _ NodeReader = fakeNodes{}

func (f fakeNodes) Get(_ context.Context, name string) (domain.Node, error) {
	if f.err != nil {
		return domain.Node{}, f.err
	}
	n, ok := f.nodes[name]
	if !ok {
		return domain.Node{}, domain.ErrNotFound
	}
	return n, nil
}

func (f fakeNodes) NamesWithNoExecute(context.Context) ([]string, error) {
	var names []string
	for name, n := range f.nodes {
		if n.HasNoExecute() {
			names = append(names, name)
		}
	}
	return names, nil
}

// evictions executes pod commands on the pods the readers hold, deciding
// each at now as the unit of work would, and records the events it would
// append.
type evictions struct {
	pods    map[string]domain.Pod
	now     time.Time
	written map[string][]string // event types by pod
}

var _ domain.Executor[domain.Pod, domain.PodCommand] = (*evictions)(nil)

func (e *evictions) Execute(_ context.Context, key domain.Key, cmd domain.PodCommand) (domain.Pod, error) {
	p := e.pods[key.String()]
	evs, err := domain.DecidePod(p, cmd, e.now)
	if err != nil {
		return domain.Pod{}, err
	}
	for _, ev := range evs {
		e.written[p.Key()] = append(e.written[p.Key()], ev.EventType())
	}
	return p, nil
}

// boundPod is herd's pod default/name, bound to n1 at t0 and running, with
// the given tolerations.
func boundPod(name string, t0 time.Time, tols ...domain.Toleration) domain.Pod {
	return domain.Pod{
		Namespace: "default", Name: name, UID: "uid-" + name, Version: 2, Source: domain.SourceHerd, CreatedAt: t0,
		Spec:   domain.PodSpec{NodeName: "n1", Tolerations: tols},
		Status: domain.PodStatus{Phase: domain.PodRunning},
	}
}

// TestReconcileReadsThroughItsReaders runs the reconciler on fake readers
// alone: what it reads of a node and its pods decides what it evicts and
// when it wakes again, with no log or view behind them.
func TestReconcileReadsThroughItsReaders(t *testing.T) {
	t0 := reconcilerstest.T0
	now := t0.Add(100 * time.Second)
	noExecute := domain.Taint{Key: "maintenance", Effect: domain.EffectNoExecute, TimeAdded: t0}
	tainted := domain.Node{Name: "n1", Taints: []domain.Taint{noExecute}}
	leaving := boundPod("leaving", t0)
	leaving.Deletion = &domain.PodDeletion{}
	herd := domain.SourceHerd
	errRead := errors.New("database is locked")

	tests := []struct {
		name  string
		nodes fakeNodes
		pods  []domain.Pod
		// listErr is what listing the pods fails with.
		listErr     error
		wantRequeue time.Duration
		wantErr     error
		// wantWritten are the events written, by pod.
		wantWritten map[string][]string
		// wantAsked are the pod lists asked for.
		wantAsked []projections.PodFilter
	}{
		{
			name:  "a node without a NoExecute taint lists no pods",
			nodes: fakeNodes{nodes: map[string]domain.Node{"n1": {Name: "n1", Taints: []domain.Taint{{Key: "x", Effect: domain.EffectNoSchedule}}}}},
			pods:  []domain.Pod{boundPod("web", t0)},
		},
		{
			name:  "a node that is gone lists no pods",
			nodes: fakeNodes{nodes: map[string]domain.Node{}},
			pods:  []domain.Pod{boundPod("web", t0)},
		},
		{
			name:    "a node that cannot be read is an error",
			nodes:   fakeNodes{err: errRead},
			wantErr: errRead,
		},
		{
			name:      "pods that cannot be listed are an error",
			nodes:     fakeNodes{nodes: map[string]domain.Node{"n1": tainted}},
			listErr:   errRead,
			wantErr:   errRead,
			wantAsked: []projections.PodFilter{{NodeName: "n1", Source: &herd}},
		},
		{
			name:  "a pod that does not tolerate the taint is evicted",
			nodes: fakeNodes{nodes: map[string]domain.Node{"n1": tainted}},
			pods:  []domain.Pod{boundPod("web", t0)},
			wantWritten: map[string][]string{"default/web": {
				domain.PodDisruptionTargeted{}.EventType(), domain.PodDeletionRequested{}.EventType(),
			}},
			wantAsked: []projections.PodFilter{{NodeName: "n1", Source: &herd}},
		},
		{
			name:  "the node wakes when the first toleration runs out",
			nodes: fakeNodes{nodes: map[string]domain.Node{"n1": tainted}},
			pods: []domain.Pod{
				boundPod("long", t0, tolerate("maintenance", secs(600))),
				boundPod("short", t0, tolerate("maintenance", secs(300))),
				boundPod("forever", t0, tolerate("maintenance", nil)),
			},
			wantRequeue: 200 * time.Second,
			wantAsked:   []projections.PodFilter{{NodeName: "n1", Source: &herd}},
		},
		{
			name:      "a pod already leaving is left alone",
			nodes:     fakeNodes{nodes: map[string]domain.Node{"n1": tainted}},
			pods:      []domain.Pod{leaving},
			wantAsked: []projections.PodFilter{{NodeName: "n1", Source: &herd}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := reconcilerstest.NewPods(nil, tt.pods...)
			pods.ListErr = tt.listErr
			repo := &evictions{pods: map[string]domain.Pod{}, now: now, written: map[string][]string{}}
			for _, p := range tt.pods {
				repo.pods[p.Key()] = p
			}
			r := New(DefaultResyncPeriod, repo, pods, tt.nodes, clocktesting.NewFakePassiveClock(now), zap.NewNop())

			res, err := r.Reconcile(t.Context(), reconcilerstest.NodeKey("n1"))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Reconcile: %v, want %v", err, tt.wantErr)
			}
			if res.RequeueAfter != tt.wantRequeue {
				t.Errorf("RequeueAfter = %s, want %s", res.RequeueAfter, tt.wantRequeue)
			}
			if diff := cmp.Diff(tt.wantWritten, repo.written, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("written (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAsked, pods.Asked); diff != "" {
				t.Errorf("pod lists asked for (-want +got):\n%s", diff)
			}
		})
	}
}
