package daemonset

import (
	"testing"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// TestCreatedPodsNameWhyTheyWereMade: each pod a DaemonSet's reconciler
// makes names why it was made on its node, as an operator asking "why is
// this pod here?" expects, in a resync's reconcile on a real SQLite log
// (no record queued it): on the nodes there when the DaemonSet was
// created, its creation; on a node that joined after it, in the same
// reconcile, the node's coming (its last change of fit or readiness); in
// place of a pod an operator deleted (stopped and finalized by herd's
// termination, each step naming the deletion), that deletion.
func TestCreatedPodsNameWhyTheyWereMade(t *testing.T) {
	env, r := createCauseEnv(t)
	created := env.Last(domain.DaemonSetStream("default", "logs"), domain.DaemonSetCreated{}.EventType())
	env.ReadyNode("n3", nil)
	recs, err := env.Log.Query(t.Context(), events.Filter{Stream: domain.NodeStream("n3"), Types: arrivalChanges, Newest: true, Limit: 1})
	if err != nil || len(recs) != 1 {
		t.Fatalf("node n3's arrival: %v, %v", recs, err)
	}
	// Its last is its turning Ready, with its first report's conditions.
	if ev, err := domain.UnmarshalEvent(recs[0].Type, recs[0].Payload); err != nil || !arrived(ev) || !domain.Holds[domain.NodeBecameReady](ev, nil) {
		t.Fatalf("node n3's arrival is %s (%v), want its turning Ready", recs[0].Type, err)
	}
	reconcilerstest.StartResyncOnly(t, env, r)
	for pod, want := range map[string]events.Record{"logs-p0000": created, "logs-p0001": created, "logs-p0002": recs[0]} {
		if rec := madeBy(t, env, pod); rec.Metadata.CausationID != want.ID {
			t.Errorf("%s (on %s) names cause %q, want %s %s at %d (%s)", pod, nodeOf(t, env, pod), rec.Metadata.CausationID,
				want.Type, want.Stream, want.Position, want.ID)
		}
	}
}

// TestAPodMadeAgainNamesTheDeletionOfTheOneBefore: the pod a DaemonSet
// makes on a node in place of one an operator deleted there (stopped and
// finalized by herd's termination, each step naming the deletion) names
// that deletion, not the termination's steps nor the DaemonSet's
// creation.
func TestAPodMadeAgainNamesTheDeletionOfTheOneBefore(t *testing.T) {
	env, r := createCauseEnv(t)
	if _, err := r.Reconcile(t.Context(), logsKey); err != nil {
		t.Fatal(err)
	}
	deletion := env.DeletedByOperator("logs-p0001")
	reconcilerstest.StartResyncOnly(t, env, r)
	rec := madeBy(t, env, "logs-p0002")
	if rec.Metadata.CausationID != deletion.ID {
		t.Errorf("logs-p0002 (on %s) names cause %q, want the deletion of logs-p0001 (%s at %d, %s)", nodeOf(t, env, "logs-p0002"),
			rec.Metadata.CausationID, deletion.Type, deletion.Position, deletion.ID)
	}
}

// createCauseEnv is the DaemonSet logs, created by an operator, over
// the Ready nodes n1 and n2, and its reconciler, on a real log.
func createCauseEnv(t *testing.T) (*reconcilerstest.Env, *Reconciler) {
	t.Helper()
	env := reconcilerstest.New(t)
	dss := env.Writer.DaemonSetCommands()
	r, err := New(DefaultConfig(), projections.NewDaemonSetView(env.Log), env.Nodes, env.Pods,
		podCommands{env.Writer.PodCommands(), env.Writer.PodBatch()}, dss, env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.ids = counting()
	env.ReadyNode("n1", nil)
	env.ReadyNode("n2", nil)
	ds := logsDS()
	if _, err := dss.Execute(operator(t.Context()), ds.Key(), domain.CreateDaemonSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "logs", UID: ds.UID}, Spec: ds.Spec}); err != nil {
		t.Fatal(err)
	}
	return env, r
}

// madeBy waits for the creation of pod by the DaemonSet's reconciler.
func madeBy(t *testing.T, env *reconcilerstest.Env, pod string) events.Record {
	t.Helper()
	var rec events.Record
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		var ok bool
		rec, ok = env.Newest(domain.PodStream("default", pod), domain.PodCreated{}.EventType())
		return ok
	}, "the resync's reconcile makes %s", pod)
	if rec.Metadata.Actor != "system:herd:daemonset" {
		t.Errorf("%s made by %q", pod, rec.Metadata.Actor)
	}
	return rec
}

// nodeOf is the node pod is bound to.
func nodeOf(t *testing.T, env *reconcilerstest.Env, pod string) string {
	t.Helper()
	p, _ := env.GetPod(pod)
	return p.Spec.NodeName
}

// TestARolledPodNamesTheChangeOfTemplate: in a rolling update the
// DaemonSet's reconciler deletes a pod of the old template itself; the
// pod it makes in its place names the change of template, not the
// deletion it made nor herd's termination of the old pod.
func TestARolledPodNamesTheChangeOfTemplate(t *testing.T) {
	env, r := createCauseEnv(t)
	itself := events.WithMetadata(t.Context(), events.Metadata{Actor: "system:herd:daemonset"})
	if _, err := r.Reconcile(itself, logsKey); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"logs-p0000", "logs-p0001"} {
		env.Pod(name, domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
			{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}})
	}
	spec := logsDS().Spec
	spec.Template.Spec.Containers = []domain.Container{{Name: "fluent", Image: "fluent-bit:4"}}
	if _, err := env.Writer.DaemonSetCommands().Execute(operator(t.Context()), logsDS().Key(), domain.UpdateDaemonSet{Spec: spec}); err != nil {
		t.Fatal(err)
	}
	changed := env.Last(domain.DaemonSetStream("default", "logs"), domain.DaemonSetChanged{}.EventType())
	if _, err := r.Reconcile(itself, logsKey); err != nil {
		t.Fatal(err)
	}
	var doomed string
	for _, name := range []string{"logs-p0000", "logs-p0001"} {
		if p, _ := env.GetPod(name); p.Terminating() {
			doomed = name
		}
	}
	if doomed == "" {
		t.Fatal("the rolling update deleted no pod of the old template")
	}
	deletion := env.Last(domain.PodStream("default", doomed), domain.PodDeletionRequested{}.EventType())
	termination := events.WithMetadata(t.Context(), events.CausedBy(deletion, "system:herd:termination", ""))
	key := domain.Key{Namespace: "default", Name: doomed}
	if _, err := env.Writer.PodCommands().Execute(termination, key, domain.RecordTermination{Step: domain.StepStopped}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Writer.PodCommands().Execute(termination, key, domain.FinalizePod{Reason: "Terminated"}); err != nil {
		t.Fatal(err)
	}
	reconcilerstest.StartResyncOnly(t, env, r)
	if rec := madeBy(t, env, "logs-p0002"); rec.Metadata.CausationID != changed.ID {
		t.Errorf("logs-p0002 (on %s), made in place of %s, names cause %q, want the change of template (%s at %d, %s)",
			nodeOf(t, env, "logs-p0002"), doomed, rec.Metadata.CausationID, changed.Type, changed.Position, changed.ID)
	}
}

// TestAReportThatLeavesANodeNotReadyIsNoArrival: among a node's report's
// changes in one event, only Ready's turn to True is an arrival for a
// DaemonSet's pod; two pressures turning at once are not.
func TestAReportThatLeavesANodeNotReadyIsNoArrival(t *testing.T) {
	pressures := domain.NodeStatusChanged{Conditions: []domain.ConditionChange{
		{Type: domain.ConditionMemoryPressure, From: domain.ConditionFalse, Status: domain.ConditionTrue},
		{Type: domain.ConditionDiskPressure, From: domain.ConditionFalse, Status: domain.ConditionTrue},
	}}
	ready := domain.NodeStatusChanged{Conditions: pressures.Conditions, BecameReady: true}
	for _, tc := range []struct {
		ev   domain.Event
		want bool
	}{{pressures, false}, {ready, true}, {domain.NodeBecameReady{}, true}, {domain.NodeTainted{}, true}} {
		if got := arrived(tc.ev); got != tc.want {
			t.Errorf("arrived(%+v) = %v, want %v", tc.ev, got, tc.want)
		}
	}
}
