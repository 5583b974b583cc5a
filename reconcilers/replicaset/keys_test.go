package replicaset

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/reconcilers/reconcilerstest"
)

// TestKeysFor follows one pod's life: its events reach the ReplicaSet
// that controls it, before and after its owners change, and none once
// it has gone. The ReplicaSet's own changes reach it but its status and
// its labels or annotations alone.
func TestKeysFor(t *testing.T) {
	w := newWorld(t, DefaultConfig(), nil, nil, at(0))
	webOwner := webRS(0).OwnerReference()
	const pod = "pod/default/web-abcde"
	steps := []struct {
		name string
		rec  events.Record
		want []string
	}{
		{"a ReplicaSet created", reconcilerstest.Record(t, "replicaset/default/web", domain.ReplicaSetCreated{Namespace: "default", Name: "web"}), []string{"replicaset/default/web"}},
		{"a ReplicaSet scaled", reconcilerstest.Record(t, "replicaset/default/web", domain.ReplicaSetChanged{}), []string{"replicaset/default/web"}},
		{"its own status", reconcilerstest.Record(t, "replicaset/default/web", domain.ReplicaSetStatusRecorded{}), nil},
		{"a ReplicaSet relabelled, which moves none of its pods", reconcilerstest.Record(t, "replicaset/default/web", domain.ReplicaSetMetadataChanged{
			Labels: map[string]string{"tier": "edge"}, Changed: []string{"metadata.labels.tier"}}), nil},
		{"a ReplicaSet deleted", reconcilerstest.Record(t, "replicaset/default/web", domain.ReplicaSetDeleted{}), []string{"replicaset/default/web"}},
		{"its pod created", reconcilerstest.Record(t, pod, domain.PodCreated{Namespace: "default", Name: "web-abcde", Owners: []domain.OwnerReference{webOwner}}), []string{"replicaset/default/web"}},
		{"its pod ready", reconcilerstest.Record(t, pod, domain.PodStatusUpdated{}), []string{"replicaset/default/web"}},
		{"its pod bound, which changes nothing it counts", reconcilerstest.Record(t, pod, domain.PodScheduled{NodeName: "n1"}), nil},
		{"its pod taken by another", reconcilerstest.Record(t, pod, domain.PodOwnersChanged{Owners: []domain.OwnerReference{apiOwner}}), []string{"replicaset/default/web", "replicaset/default/api"}},
		{"the other's pod deleted", reconcilerstest.Record(t, pod, domain.PodDeletionRequested{}), []string{"replicaset/default/api"}},
		{"the other's pod gone", reconcilerstest.Record(t, pod, domain.PodFinalized{}), []string{"replicaset/default/api"}},
		{"a gone pod's stray event", reconcilerstest.Record(t, pod, domain.PodStatusUpdated{}), nil},
		{"an orphan created", reconcilerstest.Record(t, "pod/default/lone", domain.PodCreated{Namespace: "default", Name: "lone"}), nil},
		{"a pod controlled by a Job", reconcilerstest.Record(t, "pod/default/job-1", domain.PodCreated{Namespace: "default", Name: "job-1",
			Owners: []domain.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "job", UID: "j", Controller: true}}}), nil},
		{"an unreadable creation", events.Record{Stream: pod, Type: domain.PodCreated{}.EventType(), Payload: []byte("[")}, nil},
		{"a node's event", reconcilerstest.Record(t, "node/n1", domain.NodeDeleted{}), nil},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, reconcilerstest.Strings(w.r.Watches().KeysFor(s.rec))); diff != "" {
			t.Errorf("%s: keys (-want +got):\n%s", s.name, diff)
		}
	}
}

// TestKeysForPodsListedBeforehand: a pod created before herd started
// reaches its ReplicaSet once a reconcile of its namespace has listed it.
func TestKeysForPodsListedBeforehand(t *testing.T) {
	w := newWorld(t, DefaultConfig(), []domain.ReplicaSet{webRS(1)}, []domain.Pod{pod("a")}, at(0))
	rec := reconcilerstest.Record(t, "pod/default/a", domain.PodStatusUpdated{})
	if keys := w.r.Watches().KeysFor(rec); keys != nil {
		t.Fatalf("before any reconcile: %v", keys)
	}
	if _, err := w.reconcile(t, webKey); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"replicaset/default/web"}, reconcilerstest.Strings(w.r.Watches().KeysFor(rec))); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

func TestResync(t *testing.T) {
	other := webRS(1)
	other.Namespace = "other"
	w := newWorld(t, DefaultConfig(), []domain.ReplicaSet{webRS(1), other}, nil, at(0))
	keys, err := w.r.Resync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"replicaset/default/web", "replicaset/other/web"}, reconcilerstest.Strings(keys)); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if w.r.ResyncPeriod() != DefaultConfig().ResyncPeriod {
		t.Errorf("resync period %s", w.r.ResyncPeriod())
	}
	for _, k := range []string{"replicaset/default/web", "pod/default/web", "node/n1", "replicaset"} {
		if got, want := w.r.Watches().Scope().Takes(reconcilerstest.Key(k)), k == "replicaset/default/web"; got != want {
			t.Errorf("takes %s: %v, want %v", k, got, want)
		}
	}
}
