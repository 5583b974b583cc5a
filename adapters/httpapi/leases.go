package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
	"herd/projections/watch"
)

// coordinationGroup is the API group of leases.
const coordinationGroup = "coordination.k8s.io"

// leasesResource is the group resource of leases, as errors name it.
var leasesResource = coordinationv1.Resource("leases")

// leaseKind serves leases (coordination.k8s.io/v1), as kubelets keep
// their nodes' leases in kube-node-lease and controllers their leader
// elections. A node's lease that no client keeps — a node herd's agent or
// a polled kubelet reports for — is derived from the node, so that
// `kubectl describe node` shows when it was last heard of (see
// nodeLease); a PUT or PATCH of it creates the stored lease. A renewal
// reads nothing but its lease.
func (s *Server) leaseKind() *kind {
	o := &object[domain.Lease, domain.LeaseCommand, coordinationv1.Lease, *coordinationv1.Lease]{
		kind: &kind{
			gv: coordinationv1.SchemeGroupVersion, resource: "leases", singular: "lease", name: "Lease",
			namespaced: true, list: s.leaseResource(),
		},
		read: func(ctx context.Context, key domain.Key) (domain.Lease, error) {
			return s.LeaseView.Get(ctx, key.Namespace, key.Name)
		},
		derive: func(ctx context.Context, key domain.Key) (domain.Lease, bool) {
			if key.Namespace != domain.NodeLeaseNamespace {
				return domain.Lease{}, false
			}
			return s.nodeLease(ctx, key.Name)
		},
		exec: decided[domain.Lease, domain.LeaseCommand]{
			update: func(ctx context.Context, key domain.Key, decide func(domain.Lease) ([]domain.Event, error)) (domain.Lease, error) {
				return s.Leases.UpdateLease(ctx, key.Namespace, key.Name, decide)
			},
			decide: domain.DecideLease, clock: s.Clock,
		},
		toAPI: conversions.LeaseToAPI,
		create: func(in *coordinationv1.Lease, key domain.Key) (domain.LeaseCommand, error) {
			return domain.CreateLease{Namespace: key.Namespace, Name: key.Name, UID: uuid.NewString(), Content: conversions.LeaseFromAPI(*in)}, nil
		},
		update: func(in *coordinationv1.Lease, rv int64) (domain.LeaseCommand, error) {
			return domain.UpdateLease{Content: conversions.LeaseFromAPI(*in), ResourceVersion: rv}, nil
		},
		delete: func(rv int64) domain.LeaseCommand { return domain.DeleteLease{ResourceVersion: rv} },
		rows:   leaseRows,
	}
	return o.describe(s)
}

// leaseRows are the columns kubectl get leases prints: NAME, HOLDER (the
// holder's identity), AGE.
func leaseRows(s *Server, ls []coordinationv1.Lease, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: "Name of the lease"},
		{Name: "Holder", Type: "string", Description: "The identity of the lease's holder"},
		{Name: "Age", Type: "string", Description: "Time since the lease was created"},
	}}
	now := s.Clock.Now()
	for _, l := range ls {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		t.cells = append(t.cells, []any{l.Name, holder, duration.HumanDuration(now.Sub(l.CreationTimestamp.Time))})
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
	l := domain.Lease{
		Namespace: domain.NodeLeaseNamespace, Name: name, CreatedAt: n.RegisteredAt,
		Owners:          []domain.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}},
		Spec:            domain.LeaseSpec{HolderIdentity: name, LeaseDurationSeconds: &d},
		ResourceVersion: n.ResourceVersion,
	}
	if !n.LastHeartbeat.IsZero() {
		t := n.LastHeartbeat
		l.Spec.RenewTime = &t
	}
	return l, true
}

func (s *Server) leaseResource() *apiResource {
	view := s.LeaseView
	return &apiResource{
		name: "leases", kind: "Lease", apiVersion: coordinationv1.SchemeGroupVersion.String(), namespaced: true, hasView: view != nil,
		object: func(o *watch.Object) runtime.Object {
			l := leaseAt(o.State().(domain.Lease), o.ResourceVersion)
			return &l
		},
		newObject:   func() runtime.Object { return &coordinationv1.Lease{} },
		newList:     func() runtime.Object { return &coordinationv1.LeaseList{} },
		fieldLabels: []string{"metadata.name", "metadata.namespace"},
		register: func(h *watch.Hub) error {
			return watch.Register(h, &watch.Kind[domain.Lease]{
				Resource: "leases",
				Prefix:   domain.LeaseAggregate.Prefix(),
				Fold:     projections.FoldLease,
				Meta: func(l domain.Lease) (watch.Meta, bool) {
					if !l.Exists() {
						return watch.Meta{}, false
					}
					return watch.Meta{Key: l.Key(), Labels: l.Labels,
						Fields: namespacedFields{l.Namespace, l.Name}}, true
				},
				Encode: func(l domain.Lease, rv int64) ([]byte, error) {
					return json.Marshal(leaseAt(l, rv))
				},
				Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[domain.Lease], int64, error) {
					ls, head, err := view.Rows(ctx, after, limit)
					rows := make([]watch.Row[domain.Lease], len(ls))
					for i, l := range ls {
						rows[i] = watch.Row[domain.Lease]{Key: l.Key(), Stream: domain.LeaseStream(l.Namespace, l.Name), ResourceVersion: l.ResourceVersion, State: l}
					}
					return rows, head, err
				},
			})
		},
	}
}

// leaseAt is l as clients see it at resourceVersion rv.
func leaseAt(l domain.Lease, rv int64) coordinationv1.Lease {
	l.ResourceVersion = rv
	return conversions.LeaseToAPI(l)
}
