package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
	"herd/projections/watch"
)

// coordinationGroup is the API group of leases.
const coordinationGroup = "coordination.k8s.io"

// leasesResource is the group resource of leases, as errors name it.
var leasesResource = coordinationv1.Resource("leases")

// listLeases lists or, with ?watch=true, watches leases, across namespaces
// or in one.
func (s *Server) listLeases(w http.ResponseWriter, r *http.Request) {
	s.serveCollection(w, r, s.resource("leases"))
}

// getLease answers a stored lease. A node's lease (kube-node-lease/NAME)
// that no client keeps — a node herd's agent or a polled kubelet reports
// for — is derived from the node, so that `kubectl describe node` shows
// when it was last heard of: see nodeLease.
func (s *Server) getLease(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	l, err := s.LeaseView.Get(r.Context(), ns, name)
	if errors.Is(err, domain.ErrNotFound) && ns == domain.NodeLeaseNamespace {
		var ok bool
		if l, ok = s.nodeLease(r.Context(), name); ok {
			err = nil
		}
	}
	if err != nil {
		s.writeError(w, err, "Lease", name)
		return
	}
	s.writeLease(w, r, http.StatusOK, l)
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

// createLease is POST, as a kubelet creates its node's lease.
func (s *Server) createLease(w http.ResponseWriter, r *http.Request) {
	ns := r.PathValue("namespace")
	in, err := s.decodeLease(r, ns, "")
	if err != nil {
		s.writeError(w, err, "Lease", in.Name)
		return
	}
	if err := s.acceptsObjects(r.Context(), leasesResource, ns, in.Name); err != nil {
		s.writeError(w, err, "Lease", in.Name)
		return
	}
	cmd := domain.CreateLease{Namespace: ns, Name: in.Name, UID: uuid.NewString(), Content: conversions.LeaseFromAPI(in)}
	l, err := s.Leases.Execute(r.Context(), domain.Key{Namespace: ns, Name: in.Name}, cmd)
	if err != nil {
		s.writeError(w, err, "Lease", in.Name)
		return
	}
	s.writeLease(w, r, http.StatusCreated, l)
}

// replaceLease is PUT, as a kubelet renews its lease: the whole new
// lease, conditional on its resourceVersion. A node's lease that herd
// only derived (see getLease) is created by it.
func (s *Server) replaceLease(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	in, err := s.decodeLease(r, ns, name)
	if err != nil {
		s.writeError(w, err, "Lease", name)
		return
	}
	rv, err := preconditionVersion(in.ResourceVersion)
	if err != nil {
		s.writeError(w, err, "Lease", name)
		return
	}
	s.updateLease(w, r, ns, name, func(domain.Lease) (domain.UpdateLease, error) {
		return domain.UpdateLease{Content: conversions.LeaseFromAPI(in), ResourceVersion: rv}, nil
	})
}

// patchLease is PATCH with a JSON merge, strategic merge or JSON patch,
// applied to the lease inside the write's own transaction.
func (s *Server) patchLease(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	patch, ct, err := objectPatch(r)
	if err != nil {
		s.writeError(w, err, "Lease", name)
		return
	}
	strict := strictFields(r)
	s.updateLease(w, r, ns, name, func(cur domain.Lease) (domain.UpdateLease, error) {
		out, err := applyPatch(conversions.LeaseToAPI(cur), patch, ct, strict)
		if err != nil {
			return domain.UpdateLease{}, err
		}
		rv, err := patchedIdentity("Lease", cur.Name, cur.Namespace, out.ObjectMeta)
		if err != nil {
			return domain.UpdateLease{}, err
		}
		return domain.UpdateLease{Content: conversions.LeaseFromAPI(out), ResourceVersion: rv}, nil
	})
}

// updateLease runs the update that next makes of the current lease, in
// one transaction. A node's lease that herd only derived is created from
// the update, whatever resourceVersion it names: there is nothing stored
// it could be stale against. The node is read for that only when the
// lease is not stored, so a renewal reads nothing but its lease.
func (s *Server) updateLease(w http.ResponseWriter, r *http.Request, ns, name string, next func(domain.Lease) (domain.UpdateLease, error)) {
	uid := uuid.NewString()
	update := func(derived *domain.Lease) (l domain.Lease, missing bool, err error) {
		l, err = s.Leases.Execute(r.Context(), domain.Key{Namespace: ns, Name: name}, domain.UpdateLeaseFrom{Next: next, Derived: derived, UID: uid})
		return l, derived == nil && errors.Is(err, domain.ErrNotFound), err
	}
	l, missing, err := update(nil)
	if missing && ns == domain.NodeLeaseNamespace {
		if derived, ok := s.nodeLease(r.Context(), name); ok {
			l, _, err = update(&derived)
		}
	}
	if err != nil {
		s.writeError(w, err, "Lease", name)
		return
	}
	s.writeLease(w, r, http.StatusOK, l)
}

// deleteLease is DELETE, with DeleteOptions' resourceVersion precondition
// when the body carries one.
func (s *Server) deleteLease(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	rv, err := deletePrecondition(r)
	if err != nil {
		s.writeError(w, err, "Lease", name)
		return
	}
	cmd := domain.DeleteLease{ResourceVersion: rv}
	if _, err := s.Leases.Execute(r.Context(), domain.Key{Namespace: ns, Name: name}, cmd); err != nil {
		s.writeError(w, err, "Lease", name)
		return
	}
	s.writeStatus(w, successStatus("leases", name))
}

// decodeLease reads a Lease body for namespace ns and, on a PUT, the name
// in the path.
func (s *Server) decodeLease(r *http.Request, ns, name string) (coordinationv1.Lease, error) {
	var in coordinationv1.Lease
	if err := refuseDryRun(r); err != nil {
		return in, err
	}
	if err := decodeObject(r, &in); err != nil {
		return in, err
	}
	return in, pathIdentity(&in.ObjectMeta, ns, name)
}

// writeLease answers with l in the negotiated form, a Table for kubectl
// get.
func (s *Server) writeLease(w http.ResponseWriter, r *http.Request, code int, l domain.Lease) {
	kl := conversions.LeaseToAPI(l)
	if wantsTable(w) {
		t := s.leaseTable([]coordinationv1.Lease{kl}, kl.ResourceVersion, r)
		s.writeObject(w, code, &t)
		return
	}
	s.writeObject(w, code, &kl)
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
		table:       itemsTable("lease", (*Server).leaseTable),
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
