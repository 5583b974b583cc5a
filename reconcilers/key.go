package reconcilers

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"herd/domain"
	"herd/events"
)

// Key names what one Reconcile works on, in the manner of
// controller-runtime's reconcile.Request: one object of an aggregate (a
// node, a pod), or a pass of the reconciler's own over many objects (the
// health monitor's check of every deadline, the scheduler's pass over the
// pending pods). It is a comparable value: the work queue keeps one copy
// of a key however often it is queued, and spaces the retries of each.
type Key struct {
	// Aggregate is the kind of object the key names: domain.NodeAggregate
	// for a node. Nil for a pass.
	Aggregate *domain.Aggregate
	// Namespace is the object's namespace, for an aggregate whose objects
	// live in one (see domain.Aggregate.Namespaced); empty otherwise.
	Namespace string
	// Name is the object's name (an address pool's CIDR for a pool), or
	// the pass's.
	Name string
}

// Pass is the key of a reconciler's own pass called name, one that names
// no object.
func Pass(name string) Key { return Key{Name: name} }

// IsPass reports whether the key names a pass rather than an object.
func (k Key) IsPass() bool { return k.Aggregate == nil }

// String is the key as logs and errors show it: the object's stream
// ("node/web-01", "pod/default/nginx"), or the pass's name ("monitor").
func (k Key) String() string {
	if k.Aggregate == nil {
		return k.Name
	}
	if k.Aggregate.Namespaced() {
		return k.Aggregate.Stream(k.Namespace + "/" + k.Name)
	}
	return k.Aggregate.Stream(k.Name)
}

// KeyOf is the key of the object whose stream rec belongs to, parsed from
// the stream here so that no reconciler parses one; false for a stream no
// aggregate owns or one that names no object.
func KeyOf(rec events.Record) (Key, bool) { return keyOfStream(rec.Stream) }

// KeysOf is KeyOf as a MapFunc: the key of the object rec
// happened to, or none.
func KeysOf(rec events.Record) []Key {
	if k, ok := KeyOf(rec); ok {
		return []Key{k}
	}
	return nil
}

func keyOfStream(stream string) (Key, bool) {
	a, ok := domain.AggregateOf(stream)
	if !ok {
		return Key{}, false
	}
	key, _ := a.Key(stream)
	k := Key{Aggregate: a, Name: key}
	if a.Namespaced() {
		k.Namespace, k.Name, ok = strings.Cut(key, "/")
		if !ok || k.Namespace == "" {
			return Key{}, false
		}
	}
	if k.Name == "" {
		return Key{}, false
	}
	return k, true
}

// ErrNotInScope is the error, terminal, of a key that names an object of
// an aggregate a reconciler does not handle, or a pass it does not have.
// The runner refuses such a key before Reconcile sees it.
var ErrNotInScope = errors.New("no such key for this reconciler")

// Scope is the keys a reconciler takes. The runner refuses any other as a
// terminal error, one message for every reconciler, so that a Reconcile
// sees only keys it handles.
type Scope struct {
	// Aggregates are the aggregates whose objects the reconciler's keys
	// name.
	Aggregates []*domain.Aggregate
	// Passes are the reconciler's own keys that name no object (see
	// Pass).
	Passes []Key
}

// Takes reports whether k is one of the scope's keys: an object, with its
// name (and namespace, where its aggregate has them), of one of its
// aggregates, or one of its passes.
func (s Scope) Takes(k Key) bool {
	if k.IsPass() {
		return slices.Contains(s.Passes, k)
	}
	if k.Name == "" || k.Aggregate.Namespaced() == (k.Namespace == "") {
		return false
	}
	return slices.Contains(s.Aggregates, k.Aggregate)
}

// check returns the terminal error of a key out of the scope of the
// reconciler called name; nil for a key in it.
func (s Scope) check(name string, k Key) error {
	if s.Takes(k) {
		return nil
	}
	return Terminal(fmt.Errorf("%s: key %s: %w", name, k, ErrNotInScope))
}
