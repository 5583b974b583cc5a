package statefulset

import (
	"testing"

	"go.uber.org/zap"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// TestAPodMadeAgainNamesTheDeletionOfItsPredecessor: an operator deletes
// a StatefulSet's pod on a node; herd's termination stops and finalizes
// it, each step naming the deletion; the pod the StatefulSet makes again
// under the same name names the operator's deletion as its cause, not
// the finalization that came last, in a resync's reconcile on a real
// SQLite log.
func TestAPodMadeAgainNamesTheDeletionOfItsPredecessor(t *testing.T) {
	env := reconcilerstest.New(t)
	env.ReadyNode("n1", nil)
	admin := events.WithMetadata(t.Context(), events.Metadata{Actor: "kubernetes-admin"})
	labels := map[string]string{"app": "web"}
	if _, err := env.Writer.StatefulSetCommands().Execute(admin, webKey, domain.CreateStatefulSet{
		Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec: domain.StatefulSetSpec{Replicas: 1, ServiceName: "web", Selector: domain.LabelSelector{MatchLabels: labels},
			Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "web", Image: "nginx:1"}}}}},
	}); err != nil {
		t.Fatal(err)
	}
	codec := RevisionFuncs{DataOf: conversions.StatefulSetRevisionData, TemplateOf: conversions.StatefulSetRevisionTemplate}
	r := New(projections.NewStatefulSetView(env.Log), env.Pods, env.Writer.StatefulSetCommands(), env.Writer.PodCommands(),
		Revisions{Reader: projections.NewControllerRevisionView(env.Log), Cmds: env.Writer.ControllerRevisionCommands(), Codec: codec},
		env.Clock, zap.NewNop())
	if _, err := r.Reconcile(t.Context(), reconcilers.Key{Aggregate: domain.StatefulSetAggregate, Namespace: "default", Name: "web"}); err != nil {
		t.Fatal(err)
	}
	stream := domain.PodStream("default", "web-0")
	first := env.Last(stream, domain.PodCreated{}.EventType())
	env.Pod("web-0", domain.BindPod{NodeName: "n1"})

	deletion := env.DeletedByOperator("web-0")

	reconcilerstest.StartResyncOnly(t, env, r)
	var again events.Record
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		rec, ok := env.Newest(stream, domain.PodCreated{}.EventType())
		again = rec
		return ok && rec.Position > first.Position
	}, "the resync's reconcile makes web-0 again")
	if again.Metadata.CausationID != deletion.ID {
		t.Errorf("web-0 made again names cause %q, want the operator's deletion of its predecessor (%s at %d, %s)",
			again.Metadata.CausationID, deletion.Type, deletion.Position, deletion.ID)
	}
}
