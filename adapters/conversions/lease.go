package conversions

import (
	"maps"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"herd/domain"
)

// LeaseToAPI renders a domain lease as a coordination.k8s.io/v1 Lease.
func LeaseToAPI(l domain.Lease) coordinationv1.Lease {
	out := coordinationv1.Lease{
		TypeMeta: metav1.TypeMeta{Kind: "Lease", APIVersion: coordinationv1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{
			Name:              l.Name,
			Namespace:         l.Namespace,
			UID:               types.UID(l.UID),
			ResourceVersion:   strconv.FormatInt(l.ResourceVersion, 10),
			CreationTimestamp: metav1.NewTime(l.CreatedAt),
			// Copies: the lease may be the state herd remembers, shared
			// with every reader; a handler that patches the result must
			// not change it.
			Labels:      maps.Clone(l.Labels),
			Annotations: maps.Clone(l.Annotations),
		},
		Spec: coordinationv1.LeaseSpec{
			LeaseDurationSeconds: clonePtr(l.Spec.LeaseDurationSeconds),
			AcquireTime:          microTime(l.Spec.AcquireTime),
			RenewTime:            microTime(l.Spec.RenewTime),
			LeaseTransitions:     clonePtr(l.Spec.LeaseTransitions),
		},
	}
	if l.Spec.HolderIdentity != "" {
		h := l.Spec.HolderIdentity
		out.Spec.HolderIdentity = &h
	}
	if l.Spec.Strategy != "" {
		s := coordinationv1.CoordinatedLeaseStrategy(l.Spec.Strategy)
		out.Spec.Strategy = &s
	}
	if l.Spec.PreferredHolder != "" {
		p := l.Spec.PreferredHolder
		out.Spec.PreferredHolder = &p
	}
	out.OwnerReferences = ownersToAPI(l.Owners)
	return out
}

// LeaseFromAPI reads what a lease's writer sets: its labels, annotations,
// owners and spec. Everything else in its metadata is herd's to decide
// and ignored.
func LeaseFromAPI(in coordinationv1.Lease) domain.LeaseContent {
	s := in.Spec
	spec := domain.LeaseSpec{
		LeaseDurationSeconds: s.LeaseDurationSeconds,
		AcquireTime:          fromMicroTime(s.AcquireTime),
		RenewTime:            fromMicroTime(s.RenewTime),
		LeaseTransitions:     s.LeaseTransitions,
	}
	if s.HolderIdentity != nil {
		spec.HolderIdentity = *s.HolderIdentity
	}
	if s.Strategy != nil {
		spec.Strategy = string(*s.Strategy)
	}
	if s.PreferredHolder != nil {
		spec.PreferredHolder = *s.PreferredHolder
	}
	return domain.LeaseContent{
		Labels:      in.Labels,
		Annotations: in.Annotations,
		Owners:      OwnersFromAPI(in.OwnerReferences),
		Spec:        spec,
	}
}

// microTime is t as Kubernetes' MicroTime, nil when t is.
func microTime(t *time.Time) *metav1.MicroTime {
	if t == nil {
		return nil
	}
	m := metav1.NewMicroTime(*t)
	return &m
}

// fromMicroTime is m as a time, in UTC at microsecond precision as
// Kubernetes keeps it; nil when m is.
func fromMicroTime(m *metav1.MicroTime) *time.Time {
	if m == nil {
		return nil
	}
	t := m.UTC().Truncate(time.Microsecond)
	return &t
}

// clonePtr is a pointer to a copy of *p, nil for nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
