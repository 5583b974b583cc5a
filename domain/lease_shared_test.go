package domain

import (
	"runtime/debug"
	"testing"
	"time"
	"unsafe"
)

// TestLeasesFromRequestsShareTheirRepeatedStrings: two nodes' Leases
// created by requests hold one copy of their namespace and their owners'
// API version and kind, as Leases folded from the log do.
func TestLeasesFromRequestsShareTheirRepeatedStrings(t *testing.T) {
	// unique keeps a canonical string only while a handle to it lives:
	// with the collector off, the test checks that strings are interned,
	// not when the collector ran (TestNodesFoldedFromRequestsShareTheirRepeatedStrings).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	create := func(name string) Lease {
		d := int32(40)
		return EvolveLease(Lease{}, LeaseCreated{Namespace: cloned(NodeLeaseNamespace), Name: name, UID: "uid-" + name,
			Owners: []OwnerReference{{APIVersion: cloned("v1"), Kind: cloned("Node"), Name: name, UID: "n-" + name}},
			Spec:   LeaseSpec{HolderIdentity: name, LeaseDurationSeconds: &d, RenewTime: ptr(at(1))}, At: at(1)})
	}
	a, b := create("web-01"), create("web-02")
	for what, pair := range map[string][2]string{
		"the namespace":          {a.Namespace, b.Namespace},
		"an owner's API version": {a.Owners[0].APIVersion, b.Owners[0].APIVersion},
		"an owner's kind":        {a.Owners[0].Kind, b.Owners[0].Kind},
	} {
		if unsafe.StringData(pair[0]) != unsafe.StringData(pair[1]) {
			t.Errorf("%s %q is held twice", what, pair[0])
		}
	}
}

// TestALeaseRenewalKeepsWhatItDoesNotChange: a renewal gives the Lease a
// renew time of its own and keeps the earlier version's other times and
// counts, never writing the earlier version's.
func TestALeaseRenewalKeepsWhatItDoesNotChange(t *testing.T) {
	d, transitions := int32(40), int32(2)
	l := EvolveLease(Lease{}, LeaseCreated{Namespace: NodeLeaseNamespace, Name: "web-01",
		Spec: LeaseSpec{HolderIdentity: "web-01", LeaseDurationSeconds: &d, AcquireTime: ptr(at(1)), RenewTime: ptr(at(1)), LeaseTransitions: &transitions}, At: at(1)})
	renewed := EvolveLease(l, LeaseRenewed{RenewTime: at(2), At: at(2)})
	if !l.Spec.RenewTime.Equal(at(1)) || !renewed.Spec.RenewTime.Equal(at(2)) {
		t.Errorf("renew times %v then %v, want %v then %v", *l.Spec.RenewTime, *renewed.Spec.RenewTime, at(1), at(2))
	}
	if l.Spec.LeaseDurationSeconds != renewed.Spec.LeaseDurationSeconds || l.Spec.AcquireTime != renewed.Spec.AcquireTime ||
		l.Spec.LeaseTransitions != renewed.Spec.LeaseTransitions {
		t.Error("a renewal copied the times and counts it does not change")
	}
	*renewed.Spec.RenewTime = time.Time{}
	if !l.Spec.RenewTime.Equal(at(1)) {
		t.Error("the renewed Lease shares its renew time with the earlier version")
	}
}
