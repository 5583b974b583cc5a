package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	autoscalingv1 "k8s.io/api/autoscaling/v1"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// modelState is the state of a kind on the object model: the Object
// itself, or a struct around it (a Job, a DaemonSet).
type modelState[S domain.Spec[S, St], St any] interface {
	Exists() bool
	Model() domain.Object[S, St]
}

// modelKind is a namespaced kind on the object model whose view keeps
// each object whole (projections.JSONView): what is the kind's own — its
// names, its aggregate, view and executor, its conversions and its
// table. Its object (serve) derives the rest: its listing and reads, and
// the commands of create, update, status and delete, the model's own
// (domain.Create, Update, RecordStatus, Delete), each conditional on the
// request's resourceVersion when it names one; scaled adds the scale.
type modelKind[T modelState[S, St], S domain.Spec[S, St], St any, O any, PO apiObject[O]] struct {
	*kind
	aggregate *domain.Aggregate
	fold      func(T, events.Record) (T, error)
	view      *projections.JSONView[T]
	exec      domain.Executor[T, domain.ObjectCommand[S, St]]
	// toAPI is an object as clients see it; fromAPI what a client sets
	// on one, as the create it asks for (an update is the same).
	toAPI   func(T) O
	fromAPI func(O) (domain.Create[S, St], error)
	// status is the status a client writes through the status
	// subresource; nil serves none. recordStatus is the command that
	// records it, when it is not domain.RecordStatus (a Deployment's).
	status       func(*O) St
	recordStatus func(St) domain.ObjectCommand[S, St]
	rows         func(s *Server, objs []O, r *http.Request) tableRows
}

// serve is the kind as the shared handlers serve it.
func (m modelKind[T, S, St, O, PO]) serve() *object[T, domain.ObjectCommand[S, St], O, PO] {
	o := &object[T, domain.ObjectCommand[S, St], O, PO]{
		kind: m.kind,
		listing: &listing[T]{
			aggregate: m.aggregate, fold: m.fold, rows: m.view.Rows, hasView: m.view != nil,
			exists: func(t T) bool { return t.Exists() },
			meta: func(t T) (domain.Key, int64, map[string]string) {
				o := t.Model()
				return o.Key(), o.ResourceVersion, o.Labels
			},
		},
		read: func(ctx context.Context, key domain.Key) (T, error) {
			return m.view.Get(ctx, key.Namespace, key.Name)
		},
		exec:  m.exec,
		toAPI: m.toAPI,
		create: func(in *O, key domain.Key) (domain.ObjectCommand[S, St], error) {
			c, err := m.fromAPI(*in)
			c.Meta.Namespace, c.Meta.Name, c.Meta.UID = key.Namespace, key.Name, uuid.NewString()
			return c, err
		},
		update: func(in *O, rv int64) (domain.ObjectCommand[S, St], error) {
			c, err := m.fromAPI(*in)
			return ifVersion[domain.ObjectCommand[S, St]](rv, domain.Update[S, St](c)), err
		},
		delete: func(d deletion) domain.ObjectCommand[S, St] {
			return ifVersion[domain.ObjectCommand[S, St]](d.resourceVersion, domain.Delete[S, St]{Propagation: d.propagation})
		},
		rows: m.rows,
	}
	if m.status != nil {
		record := m.recordStatus
		if record == nil {
			record = func(st St) domain.ObjectCommand[S, St] { return domain.RecordStatus[S, St]{Status: st} }
		}
		o.status = func(in *O, rv int64) (domain.ObjectCommand[S, St], error) {
			return ifVersion[domain.ObjectCommand[S, St]](rv, record(m.status(in))), nil
		}
	}
	return o
}

// describe is the kind with the handlers of its verbs.
func (m modelKind[T, S, St, O, PO]) describe(s *Server) *kind { return m.serve().describe(s) }

// scaled is the kind of a workload with replicas, with its scale
// subresource (scaleOf) too, whose writes are domain.Scale; toAPI is
// the Scale of an object.
func scaled[T modelState[S, St], S domain.Scalable[S, St], St any, O any, PO apiObject[O]](s *Server,
	m modelKind[T, S, St, O, PO], toAPI func(T) autoscalingv1.Scale) *kind {
	o := m.serve()
	k := o.describe(s)
	k.subresources = append(k.subresources, scaleOf(s, o, toAPI, func(replicas int32, rv int64) domain.ObjectCommand[S, St] {
		return ifVersion[domain.ObjectCommand[S, St]](rv, domain.Scale[S, St]{Replicas: replicas})
	}))
	return k
}
