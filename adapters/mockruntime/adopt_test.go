package mockruntime

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
)

// TestAdoptTakesThePodAsItRan: a pod adopted from its recorded status
// runs on from when it started, not from when it was adopted: Start
// gives its old start time, and its containers end when they would have.
// A pod asked to shut down stops its delay after the request.
func TestAdoptTakesThePodAsItRan(t *testing.T) {
	clk := clocktesting.NewFakeClock(at(20))
	r, err := New(Config{ShutdownDelay: 5 * time.Second}, clk)
	if err != nil {
		t.Fatal(err)
	}
	job := pod(nil)
	job.Spec.NodeName = "n1"
	job.Spec.Containers = []domain.Container{{Name: "main", Command: []string{"sleep", "30"}}}
	job.Status = domain.PodStatus{Phase: domain.PodRunning, StartTime: at(5), ContainerStatuses: []domain.ContainerStatus{{
		Name: "main", State: domain.ContainerState{Running: &domain.ContainerRunning{StartedAt: at(5)}}}}}
	r.Adopt(job)
	st, err := r.Start(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if !st.StartedAt.Equal(at(5)) || !st.ExitsAt.Equal(at(35)) {
		t.Errorf("the adopted pod started at %s and ends at %s, want %s and %s", st.StartedAt, st.ExitsAt, at(5), at(35))
	}
	clk.SetTime(at(36))
	if s, _ := r.State(context.Background(), job); s.Phase != domain.RuntimeExited || !s.FinishedAt.Equal(at(35)) {
		t.Errorf("the adopted pod at 36 s: %+v, want exited at 35 s", s)
	}

	leaving := pod(nil)
	leaving.Name, leaving.UID, leaving.Spec.NodeName = "leaving", "uid-2", "n1"
	leaving.Status = domain.PodStatus{Phase: domain.PodRunning, StartTime: at(1)}
	leaving.Deletion = &domain.PodDeletion{RequestedAt: at(34), ShutdownRequestedAt: at(34)}
	r.Adopt(leaving)
	if s, _ := r.State(context.Background(), leaving); s.Phase != domain.RuntimeRunning {
		t.Errorf("a pod asked to stop at 34 s with a 5 s delay, at 36 s: %+v, want running", s)
	}
	clk.SetTime(at(40))
	if s, _ := r.State(context.Background(), leaving); s.Phase != domain.RuntimeStopped {
		t.Errorf("a pod asked to stop at 34 s with a 5 s delay, at 40 s: %+v, want stopped", s)
	}
	if p, _ := r.Pod("default", "leaving"); p.History[len(p.History)-1].At != at(39) {
		t.Errorf("the pod stopped at %s, want %s", p.History[len(p.History)-1].At, at(39))
	}

	gone := pod(nil)
	gone.Name, gone.UID = "unbound", "uid-3"
	gone.Status.StartTime = at(1)
	r.Adopt(gone)
	if _, ok := r.Pod("default", "unbound"); ok {
		t.Error("a pod bound to no node was adopted")
	}
}
