package termination

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// viewPods is NodePods on the test's views and unit of work: what herd's
// API does behind its endpoints.
type viewPods struct{ env *reconcilerstest.Env }

func (v viewPods) Pod(ctx context.Context, ns, name string) (domain.Pod, error) {
	return v.env.Pods.Get(ctx, ns, name)
}

func (v viewPods) List(ctx context.Context, node string) ([]domain.Pod, error) {
	herd := domain.SourceHerd
	pods, _, err := v.env.Pods.List(ctx, projections.PodFilter{NodeName: node, Source: &herd})
	return pods, err
}

func (v viewPods) RecordTermination(ctx context.Context, seen domain.Pod, steps ...domain.TerminationStep) error {
	_, err := v.env.Writer.PodCommands().Execute(ctx, domain.Key{Namespace: seen.Namespace, Name: seen.Name},
		domain.PodFrom(func(p domain.Pod) (domain.PodCommand, error) {
			if p.UID != seen.UID {
				return nil, domain.ErrConflict
			}
			var cmds domain.PodSequence
			for _, s := range steps {
				cmds = append(cmds, domain.RecordTermination{Step: s})
			}
			return cmds, nil
		}))
	return err
}

func TestANodesAgentTakesItsPodsOutAndHerdFinalizesThem(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		// passes are the seconds at which the agent's reconciler runs.
		passes    []int
		wantTypes []string
	}{
		{
			name:      "a pod that stops when asked",
			passes:    []int{1},
			wantTypes: types("PodDeletionRequested", "PodShutdownRequested", "PodStopped", "PodDeprovisioned", "PodFinalized"),
		},
		{
			name:        "a pod that ignores shutdown is halted at its deadline",
			annotations: map[string]string{"mock.herd.dev/shutdown-seconds": "-1"},
			passes:      []int{1, 20, 30},
			wantTypes:   types("PodDeletionRequested", "PodShutdownRequested", "PodHalted", "PodStopped", "PodDeprovisioned", "PodFinalized"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, testConfig())
			agent, err := NewNode(testConfig(), "a1", viewPods{f.Env}, f.mock, f.Clock, zap.NewNop())
			if err != nil {
				t.Fatal(err)
			}
			f.ReadyNode("a1", map[string]string{domain.LabelRuntime: domain.RuntimeAgent})
			f.running(t, "web", "a1", 30, tt.annotations)
			f.running(t, "other", "a1", 30, nil)
			f.Pod("web", domain.DeletePod{})
			keys, err := agent.Resync(t.Context())
			if err != nil || !cmp.Equal(reconcilerstest.Strings(keys), []string{"pod/default/web"}) {
				t.Fatalf("resync: %v %v", keys, err)
			}
			for i, s := range tt.passes {
				f.SetTime(s)
				res, err := agent.Reconcile(t.Context(), keys[0])
				if err != nil {
					t.Fatalf("at %ds: %v", s, err)
				}
				if last := i == len(tt.passes)-1; last != (res == reconcilers.Result{}) {
					t.Errorf("at %ds: %+v", s, res)
				}
			}
			if p, _ := f.GetPod("web"); p.Finalized {
				t.Fatal("the agent finalized the pod; that is herd's to do")
			}
			// herd serve's reconciler sees the Deprovisioned step and
			// finalizes the pod without touching a runtime of its own.
			f.reconcile(t, tt.passes[len(tt.passes)-1], "web")
			if diff := cmp.Diff(tt.wantTypes, f.PodTypes("web")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if keys, err := agent.Resync(t.Context()); err != nil || len(keys) != 0 {
				t.Errorf("resync after: %v %v", keys, err)
			}
			if res, err := agent.Reconcile(t.Context(), reconcilerstest.PodKey("web")); err != nil || res != (reconcilers.Result{}) {
				t.Errorf("a finalized pod: %+v %v", res, err)
			}
			if other, _ := f.mock.Pod("default", "other"); other.State.Phase != domain.RuntimeRunning {
				t.Errorf("a pod nobody deleted: %s", other.State.Phase)
			}
		})
	}
}

func TestANodesAgentLeavesOtherNodesPodsAlone(t *testing.T) {
	f := newFixture(t, testConfig())
	agent, err := NewNode(testConfig(), "a1", viewPods{f.Env}, f.mock, f.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	f.ReadyNode("a2", map[string]string{domain.LabelRuntime: domain.RuntimeAgent})
	f.running(t, "web", "a2", 30, nil)
	f.Pod("web", domain.DeletePod{})
	if res, err := agent.Reconcile(t.Context(), reconcilerstest.PodKey("web")); err != nil || res != (reconcilers.Result{}) {
		t.Fatalf("%+v %v", res, err)
	}
	if diff := cmp.Diff(types("PodDeletionRequested"), f.PodTypes("web")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, key := range []string{"pod/x", "node/a1"} {
		if agent.Watches().Scope().Takes(reconcilerstest.Key(key)) {
			t.Errorf("a node's termination reconciler takes %q", key)
		}
	}
	if _, err := NewNode(testConfig(), "", nil, nil, nil, zap.NewNop()); err == nil {
		t.Error("a node reconciler without a node")
	}
	if _, err := NewNode(Config{PollPeriod: time.Second}, "a1", nil, nil, nil, zap.NewNop()); err == nil {
		t.Error("a zero configuration")
	}
}
