package zones

import (
	"testing"
	"time"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// TestPodsThatRunToTheirEnd: a pod whose containers end is Succeeded or
// Failed as its exit code says under the restart policy Never; under
// OnFailure a failed container is restarted after the kubelet's
// backoff, its restarts counted. The reconciler comes back when the
// containers are due to end or to restart.
func TestPodsThatRunToTheirEnd(t *testing.T) {
	tests := []struct {
		name      string
		policy    domain.RestartPolicy
		script    string
		wantPhase domain.PodPhase
		wantCode  int32
	}{
		{"success", domain.RestartNever, "sleep 5; exit 0", domain.PodSucceeded, 0},
		{"failure", domain.RestartNever, "sleep 5; exit 3", domain.PodFailed, 3},
		{"success on failure's policy", domain.RestartOnFailure, "sleep 5", domain.PodSucceeded, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.ReadyNode("n1", nil)
			c := reconcilerstest.CreatePod("job", "n1", 30)
			c.Spec.RestartPolicy = tt.policy
			c.Spec.Containers[0].Command = []string{"sh", "-c", tt.script}
			f.addressed("job", c, "10.88.0.2")
			res, err := f.r.Reconcile(t.Context(), reconcilerstest.PodKey("job"))
			if err != nil || res.RequeueAfter != 5*time.Second {
				t.Fatalf("started: %+v, %v; want to come back when it ends, in 5 s", res, err)
			}
			f.SetTime(5)
			f.reconcile(t, reconcilerstest.PodKey("job"))
			p, _ := f.GetPod("job")
			term := p.Status.ContainerStatuses[0].State.Terminated
			if p.Status.Phase != tt.wantPhase || term == nil || term.ExitCode != tt.wantCode || !term.FinishedAt.Equal(reconcilerstest.At(5)) {
				t.Errorf("status %+v", p.Status)
			}
			if ready, _ := p.Condition(domain.PodConditionReady); ready.Status != domain.ConditionFalse {
				t.Errorf("a finished pod is ready: %+v", ready)
			}
		})
	}
}

func TestAFailedContainerRestartsOnFailure(t *testing.T) {
	f := newFixture(t)
	f.ReadyNode("n1", nil)
	c := reconcilerstest.CreatePod("job", "n1", 30)
	c.Spec.RestartPolicy = domain.RestartOnFailure
	c.Spec.Containers[0].Command = []string{"false"}
	f.addressed("job", c, "10.88.0.2")
	key := reconcilerstest.PodKey("job")
	reconcile := func() reconcilers.Result {
		t.Helper()
		res, err := f.r.Reconcile(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// `false` ends as it starts: the pod backs off at once.
	if res := reconcile(); res.RequeueAfter != 10*time.Second {
		t.Errorf("backing off: %+v, want 10 s", res)
	}
	p, _ := f.GetPod("job")
	if w := p.Status.ContainerStatuses[0].State.Waiting; p.Status.Phase != domain.PodRunning || w == nil || w.Reason != "CrashLoopBackOff" {
		t.Errorf("backing off: %+v", p.Status)
	}
	f.SetTime(10)
	if res := reconcile(); res.RequeueAfter != 20*time.Second {
		t.Errorf("restarted and ended again: %+v, want a backoff of 20 s", res)
	}
	p, _ = f.GetPod("job")
	if p.Status.ContainerStatuses[0].RestartCount != 1 {
		t.Errorf("restarted: %+v", p.Status)
	}
}
