package domain

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func nodeLease(renew time.Time) LeaseContent {
	return LeaseContent{
		Owners: []OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "web-01", UID: "uid-n"}},
		Spec:   LeaseSpec{HolderIdentity: "web-01", LeaseDurationSeconds: ptr(int32(40)), RenewTime: ptr(renew)},
	}
}

// TestLeaseRenewalsAreCheap: the kubelet's renewal (only renewTime moves)
// is LeaseRenewed; a new holder is LeaseUpdated; the same content again is
// nothing. Each renewal of a node's lease is the node's heartbeat.
func TestLeaseRenewalsAreCheap(t *testing.T) {
	l := NewLease(NodeLeaseNamespace, "web-01")
	apply := func(cmd LeaseCommand, when int) []Event {
		t.Helper()
		evs, err := DecideLease(l, cmd, at(when))
		if err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
		for _, e := range evs {
			l = EvolveLease(l, e)
		}
		return evs
	}
	evs := apply(CreateLease{Namespace: NodeLeaseNamespace, Name: "web-01", UID: "u", Content: nodeLease(at(1))}, 1)
	if node, ok := NodeLeaseHolder(l.Namespace, l.Name); !ok || node != "web-01" || !SetsRenewTime(evs[0]) {
		t.Errorf("the lease's creation is not web-01's heartbeat")
	}
	if _, err := DecideLease(l, CreateLease{Namespace: NodeLeaseNamespace, Name: "web-01", Content: nodeLease(at(1))}, at(2)); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("create again: %v", err)
	}
	evs = apply(Precondition[LeaseCommand]{ResourceVersion: l.ResourceVersion, Command: UpdateLease{Content: nodeLease(at(10))}}, 10)
	if !cmp.Equal(evs, []Event{LeaseRenewed{RenewTime: at(10), At: at(10)}}) {
		t.Errorf("renewal: %v", evs)
	}
	if !SetsRenewTime(evs[0]) {
		t.Error("a renewal is not the node's heartbeat")
	}
	if !l.Spec.RenewTime.Equal(at(10)) || l.Version != 2 || l.Spec.HolderIdentity != "web-01" {
		t.Errorf("after renewal: %+v", l)
	}
	if evs := apply(UpdateLease{Content: nodeLease(at(10))}, 11); len(evs) != 0 {
		t.Errorf("the same content again recorded %v", evs)
	}
	moved := nodeLease(at(12))
	moved.Spec.HolderIdentity = "web-02"
	if evs := apply(UpdateLease{Content: moved}, 12); len(evs) != 1 || evs[0].EventType() != "LeaseUpdated" {
		t.Errorf("a new holder recorded %v", evs)
	}
	if _, ok := NodeLeaseHolder("default", "web-01"); ok {
		t.Error("a lease outside kube-node-lease counts as a node's heartbeat")
	}
	if SetsRenewTime(LeaseUpdated{}) || SetsRenewTime(LeaseDeleted{}) {
		t.Error("an update without a renew time, or a deletion, counts as a renewal")
	}
	n := Node{LastHeartbeat: at(5)}
	if !LastHeard(n, at(10)).Equal(at(10)) || !LastHeard(n, at(3)).Equal(at(5)) || !LastHeard(n, time.Time{}).Equal(at(5)) {
		t.Error("LastHeard is not the later of the node's report and its lease's renewal")
	}
	if _, err := DecideLease(l, Precondition[LeaseCommand]{ResourceVersion: 999, Command: UpdateLease{Content: nodeLease(at(13))}}, at(13)); !errors.Is(err, ErrConflict) {
		t.Errorf("stale update: %v", err)
	}
	// Stale and invalid at once: refused as stale, as kube-apiserver's
	// store compares the resourceVersion before it validates.
	bad := nodeLease(at(13))
	bad.Spec.LeaseDurationSeconds = new(int32)
	if _, err := DecideLease(l, Precondition[LeaseCommand]{ResourceVersion: 999, Command: UpdateLease{Content: bad}}, at(13)); !errors.Is(err, ErrConflict) {
		t.Errorf("stale and invalid update: %v, want a conflict", err)
	}
	evs = apply(DeleteLease{}, 14)
	if l.Exists() || len(evs) != 1 {
		t.Errorf("after delete: %+v", l)
	}
	if _, err := DecideLease(l, UpdateLease{Content: nodeLease(at(15))}, at(15)); !errors.Is(err, ErrNotFound) {
		t.Errorf("update a deleted lease: %v", err)
	}
}

func TestLeaseRefusals(t *testing.T) {
	bad := nodeLease(at(1))
	bad.Spec.LeaseDurationSeconds = ptr(int32(0))
	bad.Spec.LeaseTransitions = ptr(int32(-1))
	_, err := DecideLease(Lease{}, CreateLease{Namespace: NodeLeaseNamespace, Name: "web-01", Content: bad}, at(1))
	var inv *InvalidError
	if !errors.As(err, &inv) || len(inv.Fields) != 2 || inv.Fields[0].Field != "spec.leaseDurationSeconds" || inv.Fields[1].Field != "spec.leaseTransitions" {
		t.Errorf("bad figures: %v", err)
	}
	if _, err := DecideLease(Lease{}, CreateLease{Namespace: NodeLeaseNamespace, Name: "Web_01", Content: nodeLease(at(1))}, at(1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad name: %v", err)
	}
}

// TestLeaseLogReplays replays Lease events as herd writes them with the
// Lease's own code (testdata/*lease_log_v1.json, written by it): a node's
// lease created, renewed, given its node as owner, deleted and created
// again; a leader election's lease with every field of its spec, a
// change of holder, its labels and annotations dropped, its renew time
// cleared, and deleted. Each row and each payload is held byte for byte,
// as `herd replay --verify` holds a log's, so that Leases moved onto the
// object model still replay an earlier log to the same views.
func TestLeaseLogReplays(t *testing.T) {
	at := func(l Lease, rv int64) Lease { l.ResourceVersion = rv; return l }
	t.Run("node lease", func(t *testing.T) { replayFixture(t, "testdata/lease_log_v1.json", EvolveLease, at) })
	t.Run("leader election", func(t *testing.T) { replayFixture(t, "testdata/leader_lease_log_v1.json", EvolveLease, at) })
}

// TestALeaseRecordsAChangeOfMetadataAsItsUpdate: on the object model a
// Lease still records a change of its labels, annotations or owners
// alone as LeaseUpdated with its whole content, as its log always has
// (the model's other kinds record a MetadataChanged), and the same
// content again as nothing.
func TestALeaseRecordsAChangeOfMetadataAsItsUpdate(t *testing.T) {
	l := EvolveLease(NewLease(NodeLeaseNamespace, "web-01"),
		LeaseCreated{Namespace: NodeLeaseNamespace, Name: "web-01", UID: "u", Spec: nodeLease(at(1)).Spec, At: at(1)})
	for _, c := range []struct {
		what    string
		content LeaseContent
	}{
		{"a label", LeaseContent{Labels: map[string]string{"a": "b"}, Spec: nodeLease(at(1)).Spec}},
		{"an annotation", LeaseContent{Annotations: map[string]string{"a": "b"}, Spec: nodeLease(at(1)).Spec}},
		{"its owner", nodeLease(at(1))},
	} {
		evs, err := DecideLease(l, UpdateLease{Content: c.content}, at(2))
		if err != nil {
			t.Fatal(err)
		}
		want := []Event{LeaseUpdated{Labels: c.content.Labels, Annotations: c.content.Annotations, Owners: c.content.Owners,
			Spec: c.content.Spec, At: at(2)}}
		if !cmp.Equal(evs, want) {
			t.Errorf("%s: recorded %v, want %v", c.what, evs, want)
		}
		if got := mustJSON(t, evs[0]); !cmp.Equal(string(got), string(mustJSON(t, want[0]))) || EvolveLease(l, evs[0]).Version != 2 {
			t.Errorf("%s: recorded %s", c.what, got)
		}
	}
	if evs, err := DecideLease(l, UpdateLease{Content: LeaseContent{Spec: nodeLease(at(1)).Spec}}, at(3)); err != nil || len(evs) != 0 {
		t.Errorf("the same content again: %v, %v", evs, err)
	}
}
