package conversions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// TestLeaseRoundTrip: what a lease's writer sets comes back as it was
// written, at the microsecond precision Kubernetes keeps lease times in.
func TestLeaseRoundTrip(t *testing.T) {
	renew := time.Date(2026, 11, 24, 9, 0, 0, 123456789, time.UTC)
	d, n := int32(40), int32(3)
	holder, preferred := "worker-1", "worker-2"
	strategy := coordinationv1.OldestEmulationVersion
	ctl := true
	in := coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name: "worker-1", Namespace: "kube-node-lease", Labels: map[string]string{"a": "b"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "worker-1", UID: "u1", Controller: &ctl}},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: &holder, LeaseDurationSeconds: &d, LeaseTransitions: &n,
			RenewTime: &metav1.MicroTime{Time: renew}, AcquireTime: &metav1.MicroTime{Time: renew},
			Strategy: &strategy, PreferredHolder: &preferred,
		},
	}
	content := LeaseFromAPI(in)
	if want := renew.Truncate(time.Microsecond); !content.Spec.RenewTime.Equal(want) {
		t.Errorf("renew time %v, want %v", content.Spec.RenewTime, want)
	}
	l := domain.NewLease("kube-node-lease", "worker-1")
	l.Labels, l.Owners, l.Spec, l.ResourceVersion = content.Labels, content.Owners, content.Spec, 7
	out := LeaseToAPI(l)
	in.Spec.RenewTime = &metav1.MicroTime{Time: renew.Truncate(time.Microsecond)}
	in.Spec.AcquireTime = in.Spec.RenewTime
	if diff := cmp.Diff(in.Spec, out.Spec); diff != "" {
		t.Errorf("spec after a round trip (-in +out):\n%s", diff)
	}
	if diff := cmp.Diff(in.OwnerReferences, out.OwnerReferences); diff != "" {
		t.Errorf("owners after a round trip (-in +out):\n%s", diff)
	}
	if out.Kind != "Lease" || out.APIVersion != "coordination.k8s.io/v1" || out.ResourceVersion != "7" {
		t.Errorf("type and version: %+v %s", out.TypeMeta, out.ResourceVersion)
	}
	// A lease with nothing set has no pointers set.
	empty := LeaseToAPI(domain.NewLease("", "x"))
	if s := empty.Spec; s.HolderIdentity != nil || s.RenewTime != nil || s.Strategy != nil || s.PreferredHolder != nil {
		t.Errorf("empty lease spec %+v", s)
	}
}
