package domain

import (
	"testing"
	"time"
)

// renewalSpec is a kubelet's node lease renewed at.
func renewalSpec(name string, at time.Time) LeaseSpec {
	d := int32(40)
	return LeaseSpec{HolderIdentity: name, LeaseDurationSeconds: &d, RenewTime: &at}
}

// BenchmarkLeaseRenewDomain is a Lease renewal's work in the domain and
// the view's encoding: decide, fold, write the row as the lease view
// writes it (EncodeJSON). Leases are on the object model; before they
// moved, this was the Lease's own code (BENCHMARKS.md).
func BenchmarkLeaseRenewDomain(b *testing.B) {
	b.Run("Lease", func(b *testing.B) {
		l := EvolveLease(NewLease(NodeLeaseNamespace, "n1"), LeaseCreated{Namespace: NodeLeaseNamespace, Name: "n1", UID: "u1",
			Spec: renewalSpec("n1", t0), At: t0})
		renew := t0
		for b.Loop() {
			renew = renew.Add(10 * time.Second)
			evs, err := DecideLease(l, UpdateLease{Content: LeaseContent{Spec: renewalSpec("n1", renew)}}, renew)
			if err != nil || len(evs) != 1 {
				b.Fatal(evs, err)
			}
			if _, ok := evs[0].(LeaseRenewed); !ok {
				b.Fatalf("%T", evs[0])
			}
			l = EvolveLease(l, evs[0])
			if _, err := EncodeJSON(l); err != nil {
				b.Fatal(err)
			}
		}
	})
}
