package deployment

import (
	"maps"
	"testing"

	"herd/domain"
)

// settleImages reports each ReplicaSet's pods as its spec asks, those of
// the images in available all available and the others none (pods that
// never become ready).
func (h *harness) settleImages(available ...string) {
	h.t.Helper()
	for _, rs := range h.replicaSets() {
		var n int32
		for _, image := range available {
			if rs.Spec.Template.Spec.Containers[0].Image == image {
				n = rs.Spec.Replicas
			}
		}
		st := domain.ReplicaSetStatus{Replicas: rs.Spec.Replicas, FullyLabeledReplicas: rs.Spec.Replicas, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: rs.Generation}
		if _, err := h.env.Writer.ReplicaSetCommands().Execute(h.t.Context(), rs.Key(), domain.RecordReplicaSetStatus{Status: st}); err != nil {
			h.t.Fatal(err)
		}
	}
}

// stuckRollout is Kubernetes' own example of a rollout that cannot
// finish: ten replicas of nginx:1 with a surge of 3 and 2 unavailable,
// rolled to nginx:2, whose pods never become available. It stops at 8
// old pods and 5 new ones, each ReplicaSet annotated with 10 desired
// and at most 13.
func stuckRollout(t *testing.T) *harness {
	h := newHarness(t)
	spec := webSpec(10, "nginx:1")
	spec.Strategy.MaxSurge, spec.Strategy.MaxUnavailable = domain.Ints(3), domain.Ints(2)
	h.create(spec)
	h.reconcile()
	h.settleImages("nginx:1")
	h.reconcile()
	h.change(func(s *domain.DeploymentSpec) { s.Template.Spec.Containers[0].Image = "nginx:2" })
	for range 5 {
		h.reconcile()
		h.settleImages("nginx:1")
	}
	if got := h.byImage(); !maps.Equal(got, map[string]int32{"nginx:1": 8, "nginx:2": 5}) {
		t.Fatalf("the stuck rollout stands at %v, want 8 old and 5 new", got)
	}
	for name, rs := range h.replicaSets() {
		if rs.Annotations[desiredReplicasAnnotation] != "10" || rs.Annotations[maxReplicasAnnotation] != "13" {
			t.Fatalf("replicaset %s is annotated %v, want desired 10, max 13", name, rs.Annotations)
		}
	}
	return h
}

// TestAScaleInTheMiddleOfARolloutIsSharedOutInProportion is the example
// of Kubernetes' documentation ("Proportional scaling"): the stuck
// rollout scaled to 15 replicas adds 3 pods to the old ReplicaSet and 2
// to the new one, rather than all 5 to the new one, and the rollout then
// stands where it was; scaled down to 5, it takes 3 from the old and 2
// from the new.
func TestAScaleInTheMiddleOfARolloutIsSharedOutInProportion(t *testing.T) {
	h := stuckRollout(t)
	h.change(func(s *domain.DeploymentSpec) { s.Replicas = 15 })
	h.reconcile()
	if got := h.byImage(); !maps.Equal(got, map[string]int32{"nginx:1": 11, "nginx:2": 7}) {
		t.Fatalf("scaled to 15: %v, want 11 old and 7 new", got)
	}
	for name, rs := range h.replicaSets() {
		if rs.Annotations[desiredReplicasAnnotation] != "15" || rs.Annotations[maxReplicasAnnotation] != "18" {
			t.Errorf("replicaset %s is annotated %v, want desired 15, max 18", name, rs.Annotations)
		}
	}
	h.settleImages("nginx:1")
	head := h.env.Head()
	h.reconcile()
	if got := h.byImage(); !maps.Equal(got, map[string]int32{"nginx:1": 11, "nginx:2": 7}) {
		t.Errorf("the next step: %v, want the rollout where the scale left it", got)
	}
	for _, rec := range h.env.Records(head) {
		if rec.Type == "ReplicaSetChanged" {
			t.Errorf("the next step changed a ReplicaSet: %s", rec.Stream)
		}
	}

	h.change(func(s *domain.DeploymentSpec) { s.Replicas = 5 })
	h.reconcile()
	if got := h.byImage(); !maps.Equal(got, map[string]int32{"nginx:1": 5, "nginx:2": 3}) {
		t.Errorf("scaled down to 5: %v, want 5 old and 3 new", got)
	}
}

// TestAPausedRolloutScalesInProportion: a Deployment paused in the
// middle of a rollout, then scaled, shares the change out among its
// ReplicaSets as well, and moves the rollout on no further.
func TestAPausedRolloutScalesInProportion(t *testing.T) {
	h := stuckRollout(t)
	h.change(func(s *domain.DeploymentSpec) { s.Paused = true })
	h.reconcile()
	h.change(func(s *domain.DeploymentSpec) { s.Replicas = 5 })
	h.reconcile()
	h.settleImages("nginx:1", "nginx:2")
	h.reconcile()
	if got := h.byImage(); !maps.Equal(got, map[string]int32{"nginx:1": 5, "nginx:2": 3}) {
		t.Errorf("paused and scaled to 5: %v, want 5 old and 3 new, and no further step once the new pods are available", got)
	}
}

// TestASaturatedNewReplicaSetTakesTheOldToNothing: when the Deployment is
// scaled back to what its new ReplicaSet runs, all available, the old
// ReplicaSets' pods go at once.
func TestASaturatedNewReplicaSetTakesTheOldToNothing(t *testing.T) {
	h := stuckRollout(t)
	h.settleImages("nginx:1", "nginx:2")
	h.change(func(s *domain.DeploymentSpec) { s.Replicas = 5 })
	// The new ReplicaSet, annotated for 5 and running 5 available, is
	// saturated: Kubernetes scales the old one to nothing.
	rs := h.newReplicaSet("nginx:2")
	rs.Annotations[desiredReplicasAnnotation] = "5"
	if _, err := h.env.Writer.ReplicaSetCommands().Execute(h.t.Context(), rs.Key(), domain.UpdateReplicaSet{Meta: rs.ObjectMeta, Spec: rs.Spec}); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	if got := h.byImage(); !maps.Equal(got, map[string]int32{"nginx:1": 0, "nginx:2": 5}) {
		t.Errorf("with the new ReplicaSet saturated: %v, want the old at 0", got)
	}
}

// newReplicaSet is the ReplicaSet of image.
func (h *harness) newReplicaSet(image string) domain.ReplicaSet {
	h.t.Helper()
	for _, rs := range h.replicaSets() {
		if rs.Spec.Template.Spec.Containers[0].Image == image {
			return rs
		}
	}
	h.t.Fatalf("no replicaset of %s", image)
	return domain.ReplicaSet{}
}

// TestAScaleByHandToTheNewSizeDoesNotHoldRolloutsBack: a ReplicaSet an
// operator scaled to the Deployment's new replicas along with the
// Deployment has the right size but the old annotations; the reconcile
// brings them up to date, and the next template rolls out.
func TestAScaleByHandToTheNewSizeDoesNotHoldRolloutsBack(t *testing.T) {
	h := newHarness(t)
	h.rolledOut(webSpec(3, "nginx:1"))
	rs := h.newReplicaSet("nginx:1")
	if _, err := h.env.Writer.ReplicaSetCommands().Execute(t.Context(), rs.Key(), domain.ScaleReplicaSet{Replicas: 5}); err != nil {
		t.Fatal(err)
	}
	h.change(func(s *domain.DeploymentSpec) { s.Replicas = 5 })
	h.reconcile()
	if got := h.newReplicaSet("nginx:1").Annotations[desiredReplicasAnnotation]; got != "5" {
		t.Fatalf("the ReplicaSet is annotated with %s desired replicas, want 5", got)
	}
	h.settle(-1)
	h.change(func(s *domain.DeploymentSpec) { s.Template.Spec.Containers[0].Image = "nginx:2" })
	h.reconcile()
	if got := h.byImage(); got["nginx:2"] == 0 {
		t.Errorf("after a new template: %v, want a ReplicaSet of nginx:2 started", got)
	}
}
