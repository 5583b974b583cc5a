package daemonset

import (
	"context"
	"testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/reconcilers/reconcilerstest"
)

// TestDeletedPodsNameWhatAskedForTheirDeletion: the pods a DaemonSet's
// reconciler deletes name what asked for it, as read, and not the
// record that happened to queue the DaemonSet (another pod turning
// ready, which let a rollout go on) or, in a resync's reconcile, none:
// a pod of an older template the DaemonSet's change of template, a pod
// on a node that no longer takes it that node's new taint, and a pod
// that failed the report of its failure.
func TestDeletedPodsNameWhatAskedForTheirDeletion(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(*testing.T, *reconcilerstest.Env, domain.Executor[domain.DaemonSet, domain.DaemonSetCommand])
		// stream and typ are those of the record the deletion of pod
		// must name.
		pod, stream, typ string
	}{
		{"a new template", func(t *testing.T, env *reconcilerstest.Env, dss domain.Executor[domain.DaemonSet, domain.DaemonSetCommand]) {
			spec := logsDS().Spec
			spec.Template.Spec.Containers = []domain.Container{{Name: "fluent", Image: "fluent-bit:4"}}
			if _, err := dss.Execute(operator(t.Context()), logsDS().Key(), domain.UpdateDaemonSet{Spec: spec}); err != nil {
				t.Fatal(err)
			}
		}, "logs-p0000", domain.DaemonSetStream("default", "logs"), domain.DaemonSetChanged{}.EventType()},
		{"its node tainted", func(t *testing.T, env *reconcilerstest.Env, _ domain.Executor[domain.DaemonSet, domain.DaemonSetCommand]) {
			env.Node("n2", domain.TaintNode{Taint: domain.Taint{Key: "maintenance", Value: "true", Effect: domain.EffectNoExecute}})
		}, "logs-p0001", domain.NodeStream("n2"), domain.NodeTainted{}.EventType()},
		{"it failed", func(t *testing.T, env *reconcilerstest.Env, _ domain.Executor[domain.DaemonSet, domain.DaemonSetCommand]) {
			env.Pod("logs-p0001", domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodFailed}})
		}, "logs-p0001", domain.PodStream("default", "logs-p0001"), domain.PodStatusUpdated{}.EventType()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, r := createCauseEnv(t)
			dss := env.Writer.DaemonSetCommands()
			if _, err := r.Reconcile(t.Context(), logsKey); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"logs-p0000", "logs-p0001"} {
				env.Pod(name, domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
					{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}})
			}
			env.Clock.Step(reconcilerstest.At(1).Sub(reconcilerstest.T0))
			tc.act(t, env, dss)
			want := env.Last(tc.stream, tc.typ)

			reconcilerstest.StartResyncOnly(t, env, r)
			var deleted events.Record
			eventstest.Eventually(t, eventstest.WaitFor, func() bool {
				recs, err := env.Log.Query(t.Context(), events.Filter{Stream: domain.PodStream("default", tc.pod),
					Types: []string{domain.PodDeletionRequested{}.EventType()}, Newest: true, Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) == 1 {
					deleted = recs[0]
				}
				return len(recs) == 1
			}, "the resync's reconcile deletes %s", tc.pod)
			if deleted.Metadata.Actor != "system:herd:daemonset" || deleted.Metadata.CausationID != want.ID {
				t.Errorf("%s's deletion by %s names cause %q, want %s %s at %d (%s)", tc.pod, deleted.Metadata.Actor,
					deleted.Metadata.CausationID, want.Type, want.Stream, want.Position, want.ID)
			}
		})
	}
}

// operator is ctx as an operator's command.
func operator(ctx context.Context) context.Context {
	return events.WithMetadata(ctx, events.Metadata{Actor: "kubernetes-admin"})
}
