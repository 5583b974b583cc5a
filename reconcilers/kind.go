package reconcilers

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/fx"

	"herd/domain"
	"herd/events"
)

// Named is an object of a kind a reconciler keeps: what its key is made
// of. Every kind on the object model is one (domain.ObjectMeta.Key).
type Named interface {
	Key() domain.Key
}

// Lister lists the objects of a kind: those of namespace, every one when
// it is "", and the log position they are read at. A kind's view is one.
type Lister[T Named] interface {
	List(ctx context.Context, namespace string) ([]T, int64, error)
}

// Reader is what a reconciler over a kind reads of its objects: the one
// of its key, and every one on resync. A kind's view is one.
type Reader[T Named] interface {
	// Last returns the object or, deleted, its tombstone (which does not
	// Exist, and says whether its dependents are orphaned), or
	// domain.ErrNotFound.
	Last(ctx context.Context, namespace, name string) (T, error)
	Lister[T]
}

// Kind is what a reconciler over one kind of the object model (a
// ReplicaSet's, a Job's) shares with every other such reconciler: its
// name, the aggregate its keys name, and its resync, which lists every
// object of the kind as controller-runtime's informers resync. A
// reconciler embeds it, which gives it Name, ResyncPeriod and Resync,
// and says itself only what is its own: what it watches and what a
// reconcile does.
type Kind[T Named] struct {
	name      string
	aggregate *domain.Aggregate
	period    time.Duration
	objects   Lister[T]
}

// NewKind is the reconciler called name over the objects of aggregate,
// which objects lists, each looked at again every period without an
// event: how a lost event heals.
func NewKind[T Named](name string, aggregate *domain.Aggregate, period time.Duration, objects Lister[T]) Kind[T] {
	return Kind[T]{name: name, aggregate: aggregate, period: period, objects: objects}
}

// Name implements Reconciler: the name --reconcilers switches.
func (k Kind[T]) Name() string { return k.name }

// ResyncPeriod implements Resyncer.
func (k Kind[T]) ResyncPeriod() time.Duration { return k.period }

// Resync implements Resyncer: the key of every object of the kind.
func (k Kind[T]) Resync(ctx context.Context) ([]Key, error) {
	all, _, err := k.objects.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", k.aggregate.Name(), err)
	}
	keys := make([]Key, 0, len(all))
	for _, o := range all {
		n := o.Key()
		keys = append(keys, k.ObjectKey(n.Namespace, n.Name))
	}
	return keys, nil
}

// ObjectKey is the key of the object namespace/name of the kind.
func (k Kind[T]) ObjectKey(namespace, name string) Key {
	return Key{Aggregate: k.aggregate, Namespace: namespace, Name: name}
}

// Acting is ctx with the metadata of what the reconciler writes: herd's
// system user of its name as the actor, and the reconciler as the source.
func (k Kind[T]) Acting(ctx context.Context) context.Context {
	return events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:" + k.name, Source: "reconciler/" + k.name})
}

// configured is what the fx module of a reconciler with settings asks
// the app for: its settings, which the app may leave out, and P, an fx.In
// struct of what the reconciler reads and writes through.
type configured[C, P any] struct {
	fx.In

	Config C `optional:"true"`
	Params P
}

// Configured is the fx module of the reconciler called name: it puts
// what build makes in the reconcilers' value group, under the name
// --reconcilers switches. build gets the reconciler's settings, those the
// app supplies or defaults() when it supplies none, and P, an fx.In
// struct of what the reconciler reads and writes through, as the app
// provides them.
func Configured[C comparable, P any, R Reconciler](name string, defaults func() C, build func(C, P) (R, error)) fx.Option {
	return fx.Module(name, Provide(func(in configured[C, P]) (R, error) {
		var none C
		if in.Config == none {
			in.Config = defaults()
		}
		return build(in.Config, in.Params)
	}))
}

// Positive is nil for a setting above zero, else the error that names
// the setting (what: its reconciler's and its own name, or its flag) and
// its value: how a reconciler's Config.Validate says what is wrong, one
// line a setting, joined with errors.Join.
func Positive[V time.Duration | int](what string, v V) error {
	if v > 0 {
		return nil
	}
	if _, ok := any(v).(time.Duration); ok {
		return fmt.Errorf("%s %v: want a positive duration", what, v)
	}
	return fmt.Errorf("%s %v: want a positive number", what, v)
}
