package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// coordinationGroup is the API group of leases.
const coordinationGroup = "coordination.k8s.io"

// leaseKind serves leases (coordination.k8s.io/v1), as kubelets keep
// their nodes' leases in kube-node-lease and controllers their leader
// elections. A node's lease that no client keeps — a node herd's agent or
// a polled kubelet reports for — is derived from the node, so that
// `kubectl describe node` shows when it was last heard of (see
// nodeLease); a PUT or PATCH of it creates the stored lease. A renewal
// reads nothing but its lease, and a read of a lease herd knows it never
// wrote reads no row (LeaseView.NeverWritten).
func (s *Server) leaseKind() *kind {
	o := &object[domain.Lease, domain.LeaseCommand, coordinationv1.Lease, *coordinationv1.Lease]{
		kind: &kind{
			gv: coordinationv1.SchemeGroupVersion, resource: "leases", singular: "lease", name: "Lease",
			namespaced: true,
		},
		listing: &listing[domain.Lease]{
			aggregate: domain.LeaseAggregate, fold: projections.FoldLease,
			rows: s.LeaseView.Rows, hasView: s.LeaseView != nil,
			exists: domain.Lease.Exists,
			meta: func(l domain.Lease) (domain.Key, int64, map[string]string) {
				return domain.Key{Namespace: l.Namespace, Name: l.Name}, l.ResourceVersion, l.Labels
			},
		},
		read: func(ctx context.Context, key domain.Key) (domain.Lease, error) {
			// A lease herd knows it never wrote (a kubelet's first read
			// of its lease, at registration) is not read from its row.
			if s.LeaseView.NeverWritten(ctx, key.Namespace, key.Name) {
				return domain.Lease{}, fmt.Errorf("leases.coordination.k8s.io %q: %w", key.Name, domain.ErrNotFound)
			}
			return s.LeaseView.Get(ctx, key.Namespace, key.Name)
		},
		derive: func(ctx context.Context, key domain.Key) (domain.Lease, bool) {
			if key.Namespace != domain.NodeLeaseNamespace {
				return domain.Lease{}, false
			}
			return s.nodeLease(ctx, key.Name)
		},
		neverWritten: func(ctx context.Context, key domain.Key) bool {
			return s.LeaseView.NeverWritten(ctx, key.Namespace, key.Name)
		},
		exec:  s.Leases,
		toAPI: conversions.LeaseToAPI,
		create: func(in *coordinationv1.Lease, key domain.Key) (domain.LeaseCommand, error) {
			return domain.CreateLease{Namespace: key.Namespace, Name: key.Name, UID: uuid.NewString(), Content: conversions.LeaseFromAPI(*in)}, nil
		},
		update: func(in *coordinationv1.Lease, rv int64) (domain.LeaseCommand, error) {
			return ifVersion[domain.LeaseCommand](rv, domain.UpdateLease{Content: conversions.LeaseFromAPI(*in)}), nil
		},
		delete: func(d deletion) domain.LeaseCommand {
			return ifVersion[domain.LeaseCommand](d.resourceVersion, domain.DeleteLease{})
		},
		rows: leaseRows,
	}
	k := o.describe(s)
	k.nodeRule = mainGate.authorizeNodeLease
	return k
}

// leaseRows are the columns kubectl get leases prints: NAME, HOLDER (the
// holder's identity), AGE.
func leaseRows(s *Server, ls []coordinationv1.Lease, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{nameColumn("lease"), column("Holder", "The identity of the lease's holder"), ageColumn("the lease was created")}}
	now := s.Clock.Now()
	for _, l := range ls {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		t.cells = append(t.cells, []any{l.Name, holder, age(now, l.CreationTimestamp)})
	}
	return t
}

// nodeLeaseDurationSeconds is the duration of the lease herd derives for a
// node when it is not told its node monitor grace period: the kubelet's
// default (nodeLeaseDurationSeconds, 40 s), which is also Kubernetes'
// node monitor grace period.
const nodeLeaseDurationSeconds int32 = 40

// nodeLease is the lease herd shows for a node that no client keeps one
// for: held by the node, renewed at its last heartbeat, lasting herd's
// node monitor grace period, owned by the Node, with the node's
// resourceVersion. It is not stored and cannot be written
// as such: a PUT or PATCH of it creates the stored lease first.
func (s *Server) nodeLease(ctx context.Context, name string) (domain.Lease, bool) {
	n, err := s.NodeView.Get(ctx, name)
	if err != nil || !n.Exists() {
		return domain.Lease{}, false
	}
	d := nodeLeaseDurationSeconds
	if g := s.cfg.NodeMonitorGracePeriod; g >= time.Second {
		d = int32(g / time.Second)
	}
	l := domain.NewLease(domain.NodeLeaseNamespace, name)
	l.CreatedAt = n.RegisteredAt
	l.Owners = []domain.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}}
	l.Spec = domain.LeaseSpec{HolderIdentity: name, LeaseDurationSeconds: &d}
	l.ResourceVersion = n.ResourceVersion
	if !n.LastHeartbeat.IsZero() {
		t := n.LastHeartbeat
		l.Spec.RenewTime = &t
	}
	return l, true
}
