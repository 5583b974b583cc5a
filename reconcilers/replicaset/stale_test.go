package replicaset

import (
	"context"
	"testing"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// changedAfterRead is a ReplicaSet reader that, once, applies change to
// the ReplicaSet right after the reconciler read it: an operator's scale
// or a Deployment's rollout landing while the reconcile works.
type changedAfterRead struct {
	Reader
	change func(ctx context.Context)
}

func (r *changedAfterRead) Last(ctx context.Context, namespace, name string) (domain.ReplicaSet, error) {
	rs, err := r.Reader.Last(ctx, namespace, name)
	if r.change != nil {
		r.change(ctx)
		r.change = nil
	}
	return rs, err
}

// TestNoStatusOfAGenerationItNoLongerIs: a ReplicaSet scaled while its
// reconcile counts it gets no status of the generation it was read at
// after the scale, which would name as its cause a change older than the
// scale; its scale brings the key back, and that reconcile records the
// status of the generation it is, caused by the scale.
func TestNoStatusOfAGenerationItNoLongerIs(t *testing.T) {
	env := reconcilerstest.New(t)
	cmds := env.Writer.ReplicaSetCommands()
	rs := webRS(2)
	ctx := events.WithMetadata(t.Context(), events.Metadata{Actor: "kubernetes-admin"})
	if _, err := cmds.Execute(ctx, rs.Key(), domain.CreateReplicaSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: rs.UID}, Spec: rs.Spec}); err != nil {
		t.Fatal(err)
	}
	sets := &changedAfterRead{Reader: projections.NewReplicaSetView(env.Log)}
	r, err := New(DefaultConfig(), sets, env.Pods, podCommands{env.Writer.PodCommands(), env.Writer.PodBatch()}, cmds, env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.IDs = counting()
	if _, err := r.Reconcile(t.Context(), webKey); err != nil {
		t.Fatal(err)
	}

	// Its pods turn ready: a count the next reconcile records.
	for _, name := range []string{"web-p0000", "web-p0001"} {
		env.Pod(name, domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
			{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}})
	}

	var scaled events.Record
	sets.change = func(context.Context) {
		if _, err := cmds.Execute(ctx, rs.Key(), domain.ScaleReplicaSet{Replicas: 3}); err != nil {
			t.Fatal(err)
		}
		recs := env.Records(env.Head() - 1)
		if len(recs) != 1 || recs[0].Type != (domain.ReplicaSetChanged{}).EventType() {
			t.Fatalf("the scale wrote %v", recs)
		}
		scaled = recs[0]
	}
	res, err := r.Reconcile(t.Context(), webKey)
	if err != nil || res != (reconcilers.Result{}) {
		t.Fatalf("the reconcile of web as it stood before the scale: %+v, %v", res, err)
	}
	current := func() domain.ReplicaSet {
		t.Helper()
		got, err := sets.Last(t.Context(), "default", "web")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := current(); got.Status.ObservedGeneration >= got.Generation {
		t.Fatalf("web at generation %d already observed (%+v) before any reconcile read it", got.Generation, got.Status)
	}
	for _, rec := range env.Records(scaled.Position) {
		if rec.Type == (domain.ReplicaSetStatusRecorded{}).EventType() {
			t.Errorf("a status of web as read before its scale was recorded after the scale, at %d", rec.Position)
		}
	}

	// The scale's record brings the key back.
	if got := reconcilerstest.Strings(r.Watches().KeysFor(scaled)); len(got) != 1 || got[0] != webKey.String() {
		t.Fatalf("the scale reaches %v, want %s", got, webKey)
	}
	if _, err := r.Reconcile(t.Context(), webKey); err != nil {
		t.Fatal(err)
	}
	if got := current(); got.Status.ObservedGeneration != got.Generation || got.Status.Replicas != 3 {
		t.Errorf("web after the scale's reconcile: generation %d, status %+v", got.Generation, got.Status)
	}
}
