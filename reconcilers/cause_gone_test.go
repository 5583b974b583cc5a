package reconcilers

import (
	"fmt"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections"
	"herd/projections/command"
)

// TestGoneLossCauseFindsTheLossOfAPodNoLongerRead: the loss named is the
// newest deletion request, by another than the reconcile's reconciler,
// of a gone pod of the prefix whose controller is the one asked for and
// whose UID it no longer counts, however many losses of others came
// after it (read back page by page); nothing at or before after; by
// node, the newest of each node asked that has one.
func TestGoneLossCauseFindsTheLossOfAPodNoLongerRead(t *testing.T) {
	checkGoneLossCause(t, openSQLiteLog(t))
}

// TestGoneLossCauseFindsTheLossOfAPodNoLongerReadOnPostgres is the same
// on PostgreSQL.
func TestGoneLossCauseFindsTheLossOfAPodNoLongerReadOnPostgres(t *testing.T) {
	checkGoneLossCause(t, eventstest.OpenPostgres(t, pgtest.URL(t)))
}

func checkGoneLossCause(t *testing.T, log events.Log) {
	ctx := t.Context()
	if err := projections.Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	pods := projections.NewWriter(log, clk, nil).PodCommands()
	const own = "system:herd:replicaset"
	evictor := events.WithMetadata(ctx, events.Metadata{Actor: "system:serviceaccount:kube-system:evictor"})
	itself := events.WithMetadata(ctx, events.Metadata{Actor: own})
	controlledBy := func(uid string) []domain.OwnerReference {
		return []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: uid, Controller: true}}
	}
	// gone creates a pod made for node (none: it goes at once once
	// deleted), owned as given, deletes it as by, and returns the
	// deletion request.
	gone := func(name, uid, node string, owners []domain.OwnerReference, by events.Metadata) events.Record {
		t.Helper()
		clk.Step(time.Second)
		key := domain.Key{Namespace: "default", Name: name}
		create := domain.CreatePod{Namespace: "default", Name: name, UID: uid, Owners: owners,
			Spec: domain.PodSpec{NodeName: node, Containers: []domain.Container{{Name: "app", Image: "busybox"}}}}
		if _, err := pods.Execute(ctx, key, create); err != nil {
			t.Fatal(err)
		}
		if _, err := pods.Execute(events.WithMetadata(ctx, by), key, domain.DeletePod{}); err != nil {
			t.Fatal(err)
		}
		recs, err := log.Query(ctx, events.Filter{Stream: domain.PodStream("default", name), Types: []string{domain.PodDeletionRequested{}.EventType()}, Newest: true, Limit: 1})
		if err != nil || len(recs) != 1 {
			t.Fatalf("deletion of %s: %v, %v", name, recs, err)
		}
		return recs[0]
	}
	evicted := events.MetadataFrom(evictor)
	wanted := gone("web-a", "uid-a", "n1", controlledBy("rs-web"), evicted)
	for i := range 3 * lossPage {
		gone(fmt.Sprintf("web-other-%d", i), fmt.Sprintf("uid-other-%d", i), "", controlledBy("rs-other"), evicted)
	}
	orphan := gone("web-orphan", "uid-orphan", "", nil, evicted)
	gone("web-self", "uid-self", "", controlledBy("rs-web"), events.MetadataFrom(itself))
	gone("webx-1", "uid-x", "", controlledBy("rs-web"), evicted) // another prefix's, the newest

	lctx := withCauseLog(itself, log)
	for _, tc := range []struct {
		name       string
		controller string
		kept       []string
		after      int64
		want       events.Record
	}{
		{"one far back", "rs-web", nil, 0, wanted},
		{"one still counted", "rs-web", []string{"uid-a"}, 0, events.Record{}},
		{"none newer than the cause read", "rs-web", nil, wanted.Position, events.Record{}},
		{"not the reconciler's own", "rs-web", nil, orphan.Position, events.Record{}},
		{"another controller's", "rs-none", nil, 0, events.Record{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := GoneLossCause(lctx, "default", "web-", tc.controller, tc.kept, tc.after)
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.want.ID != "") || got.ID != tc.want.ID {
				t.Errorf("GoneLossCause = %s %s at %d (%v), want %s %s at %d", got.Type, got.Stream, got.Position, ok,
					tc.want.Type, tc.want.Stream, tc.want.Position)
			}
		})
	}
	if _, ok, err := GoneLossCause(itself, "default", "web-", "rs-web", nil, 0); ok || err != nil {
		t.Errorf("without a log: found %v, %v; want nothing", ok, err)
	}
	// By node: web-a was bound to n1; no pod of rs-web to n2.
	byNode, err := GoneLossCausesByNode(lctx, "default", "web-", "rs-web", nil, 0, []string{"n1", "n2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(byNode) != 1 || byNode["n1"].ID != wanted.ID {
		t.Errorf("GoneLossCausesByNode = %v, want n1's the deletion of web-a (%s)", byNode, wanted.ID)
	}
}

// TestLossOriginNamesTheLossAStopAnswered: the stop herd's termination
// recorded for a deletion request is traced back to that request, and
// through a chain of such answers to the first; a stop that answered
// nothing of its pod's (the pod's own end, or a change of another
// stream) is its own origin.
func TestLossOriginNamesTheLossAStopAnswered(t *testing.T) {
	checkLossOrigin(t, openSQLiteLog(t))
}

// TestLossOriginNamesTheLossAStopAnsweredOnPostgres is the same on
// PostgreSQL.
func TestLossOriginNamesTheLossAStopAnsweredOnPostgres(t *testing.T) {
	checkLossOrigin(t, eventstest.OpenPostgres(t, pgtest.URL(t)))
}

func checkLossOrigin(t *testing.T, log events.Log) {
	ctx := t.Context()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	versions := map[string]int64{}
	// record appends ev to stream with the metadata md.
	record := func(stream string, ev domain.Event, md events.Metadata) events.Record {
		t.Helper()
		enc, err := command.EncodeEvents([]domain.Event{ev})
		if err != nil {
			t.Fatal(err)
		}
		recs := eventstest.AppendCommit(t, log, stream, versions[stream], md, at, enc...)
		versions[stream]++
		return recs[0]
	}
	web, other := domain.PodStream("default", "web-a"), domain.PodStream("default", "web-b")
	evicted := record(web, domain.PodDeletionRequested{At: at}, events.Metadata{Actor: "system:serviceaccount:kube-system:evictor"})
	stopped := record(web, domain.PodStopped{At: at}, events.Metadata{Actor: "system:herd:termination", CausationID: evicted.ID})
	relabelled := record(web, domain.PodMetadataChanged{}, events.Metadata{Actor: "someone", CausationID: stopped.ID})
	ownEnd := record(other, domain.PodStopped{At: at}, events.Metadata{Actor: "system:herd:kubelet"})
	// A stop caused by an event of another stream (a node's drain)
	// began there: the pod's own loss is named.
	drained := record(other, domain.PodStopped{At: at}, events.Metadata{Actor: "system:herd:termination", CausationID: evicted.ID})

	lctx := withCauseLog(ctx, log)
	for _, tc := range []struct {
		name      string
		rec, want events.Record
	}{
		{"a stop a deletion request led to", stopped, evicted},
		{"a chain of answers", relabelled, evicted},
		{"the request itself", evicted, evicted},
		{"a stop that answered nothing", ownEnd, ownEnd},
		{"a stop that answered another pod's loss", drained, drained},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LossOrigin(lctx, tc.rec)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != tc.want.ID {
				t.Errorf("LossOrigin(%s at %d) = %s at %d, want %s at %d", tc.rec.Type, tc.rec.Position, got.Type, got.Position, tc.want.Type, tc.want.Position)
			}
		})
	}
	if got, err := LossOrigin(ctx, stopped); err != nil || got.ID != stopped.ID {
		t.Errorf("without a log: %s, %v; want the record given", got.Type, err)
	}
}
