package replicaset

import (
	"testing"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// TestAReplacementNamesTheEvictionOfAPodAlreadyGone: a pod evicted and
// gone before the ReplicaSet's reconciler reads the namespace (a pod on
// no node goes at once; a busy herd's reconciler may come late) is
// replaced for its eviction, not for the ReplicaSet's creation: the
// replacement's creation names the eviction's PodDeletionRequested,
// found in the log, in a resync's reconcile that no record queued.
func TestAReplacementNamesTheEvictionOfAPodAlreadyGone(t *testing.T) {
	env := reconcilerstest.New(t)
	cmds := env.Writer.ReplicaSetCommands()
	rs := webRS(2)
	admin := events.WithMetadata(t.Context(), events.Metadata{Actor: "kubernetes-admin"})
	if _, err := cmds.Execute(admin, rs.Key(), domain.CreateReplicaSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: rs.UID}, Spec: rs.Spec}); err != nil {
		t.Fatal(err)
	}
	r, err := New(DefaultConfig(), projections.NewReplicaSetView(env.Log), env.Pods, podCommands{env.Writer.PodCommands(), env.Writer.PodBatch()}, cmds, env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.IDs = counting()
	if _, err := r.Reconcile(t.Context(), webKey); err != nil {
		t.Fatal(err)
	}
	// Another ReplicaSet's pod of the same prefix is evicted later: not
	// web's loss.
	other := reconcilerstest.CreatePod("web-other-0", "", 30)
	other.Owners = []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-other", UID: "rs-web-other", Controller: true}}
	env.Pod(other.Name, other)

	evictor := events.WithMetadata(t.Context(), events.Metadata{Actor: "system:serviceaccount:kube-system:evictor"})
	if _, err := env.Writer.PodCommands().Execute(evictor, domain.Key{Namespace: "default", Name: "web-p0000"}, domain.DeletePod{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := env.Newest(domain.PodStream("default", "web-p0000"), domain.PodFinalized{}.EventType()); !ok {
		t.Fatalf("web-p0000, on no node, is not gone after its eviction: %v", env.PodTypes("web-p0000"))
	}
	eviction := env.Last(domain.PodStream("default", "web-p0000"), domain.PodDeletionRequested{}.EventType())
	if _, err := env.Writer.PodCommands().Execute(evictor, domain.Key{Namespace: "default", Name: other.Name}, domain.DeletePod{}); err != nil {
		t.Fatal(err)
	}

	reconcilerstest.StartResyncOnly(t, env, r)
	var created events.Record
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		rec, ok := env.Newest(domain.PodStream("default", "web-p0002"), domain.PodCreated{}.EventType())
		created = rec
		return ok
	}, "the resync's reconcile replaces web-p0000")
	if created.Metadata.CausationID != eviction.ID {
		t.Errorf("web-p0002's creation names cause %q, want the eviction of web-p0000 (%s at %d, %s)",
			created.Metadata.CausationID, eviction.Type, eviction.Position, eviction.ID)
	}
}
