package watch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"

	"herd/events"
)

// Kind tells the hub about one resource, whose objects' states are of type
// S. Adding a resource to watches and lists is one Kind.
type Kind[S any] struct {
	// Resource names the resource in requests and errors: "nodes".
	Resource string
	// Prefix selects the streams that hold the resource's objects, one
	// stream per object: the prefix of the aggregate's streams, as the
	// domain's description of the aggregate gives it. No prefix may start
	// another.
	Prefix string
	// Fold folds one event of an object's stream into its state; the
	// state of an object seen for the first time is the zero S. It must
	// be pure: the hub and every watcher reading history fold the same
	// events and must agree.
	Fold func(s S, rec events.Record) (S, error)
	// Meta says whether s is an object clients see (created and not
	// deleted) and, if so, what lists sort by and selectors match. It is
	// called for every event, so it must be cheap.
	Meta func(s S) (Meta, bool)
	// Encode renders s as clients see it, with resourceVersion rv. The hub
	// calls it at most once per object version, and only when a client
	// needs it.
	Encode func(s S, rv int64) ([]byte, error)
	// Rows reads the resource's view: up to limit objects (all when limit
	// is 0) whose keys sort after after, in key order, deleted ones
	// included, and the log position the rows reflect, all consistent with
	// each other.
	Rows func(ctx context.Context, after string, limit int) ([]Row[S], int64, error)
}

// Row is one object as a view holds it.
type Row[S any] struct {
	// Key is the object's key, as Meta gives it; deleted objects keep theirs.
	Key string
	// Stream is the object's stream in the log.
	Stream string
	// ResourceVersion is the position of the last event that touched it.
	ResourceVersion int64
	// State is the object's state.
	State S
}

// Meta is what lists and selectors need of an object.
type Meta struct {
	// Key identifies the object within its resource and orders lists:
	// "name", or "namespace/name".
	Key string
	// Labels are matched by label selectors. The map may be the
	// object's own: it must not be changed.
	Labels map[string]string
	// Fields are matched by field selectors: "metadata.name" and the
	// resource's own. A small value that answers from the object (rather
	// than a map built for every event) keeps the hub's memory down.
	Fields Fields
}

// Fields are an object's selectable fields: apimachinery's fields.Fields
// (fields.Set is one).
type Fields interface {
	Has(field string) bool
	Get(field string) string
}

// FieldSet is Fields that answers nothing: an object that does not exist.
func (m Meta) FieldSet() Fields {
	if m.Fields == nil {
		return noFields{}
	}
	return m.Fields
}

type noFields struct{}

func (noFields) Has(string) bool   { return false }
func (noFields) Get(string) string { return "" }

// Object is one object of a resource as it stood at one log position.
// Objects are shared by every watcher and never change; Exists is false
// for one not created yet or deleted, whose state the hub keeps for
// folding.
type Object struct {
	// Stream is the object's stream.
	Stream string
	// ResourceVersion is the log position the object is as of.
	ResourceVersion int64
	// Meta is valid when Exists.
	Meta Meta
	// Exists is true for an object clients see.
	Exists bool

	state any
	kind  resource

	// renderings are the object's encoded forms (JSON, protobuf), each
	// made once on first use. The hub keeps several versions of every
	// object, so the struct is kept small: one mutex and one slice.
	mu         sync.Mutex
	renderings []rendering
	// held, while the hub's ring holds the object, counts its
	// renderings' bytes there (the hub's cache bytes).
	held *atomic.Int64
}

// rendering is one form of an object, by the key its client gave.
type rendering struct {
	key  any
	data []byte
}

// jsonForm is the key of an object's JSON among its renderings.
type jsonForm struct{}

// JSON is the object as clients see it, rendered on first use and shared
// from then on.
func (o *Object) JSON() ([]byte, error) {
	return o.Rendered(jsonForm{}, func() ([]byte, error) { return o.kind.encode(o.state, o.ResourceVersion) })
}

// Rendered is the object in the form key names, made by render on first
// use and shared from then on, as JSON is: a client that serves another
// encoding (protobuf) renders each object version once for every list and
// watch. A render that fails keeps nothing; the next call tries again.
func (o *Object) Rendered(key any, render func() ([]byte, error)) ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range o.renderings {
		if r.key == key {
			return r.data, nil
		}
	}
	data, err := render()
	if err != nil {
		return nil, err
	}
	o.renderings = append(o.renderings, rendering{key: key, data: data})
	if o.held != nil {
		o.held.Add(int64(len(data)))
	}
	return data, nil
}

// account counts o's renderings, those made and those to come, in held.
func (o *Object) account(held *atomic.Int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held == nil {
		o.held = held
		held.Add(o.renderedBytes())
	}
}

// unaccount stops counting o's renderings where account counted them.
func (o *Object) unaccount() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held != nil {
		o.held.Add(-o.renderedBytes())
		o.held = nil
	}
}

// renderedBytes is the size of o's renderings; o.mu is held.
func (o *Object) renderedBytes() int64 {
	var n int64
	for _, r := range o.renderings {
		n += int64(len(r.data))
	}
	return n
}

// State is the object's state as the kind's Fold left it, for a client
// that renders it in another form than JSON. It is shared and must not be
// changed.
func (o *Object) State() any { return o.state }

// at is the same object stamped with a later resourceVersion: the last
// state of a deleted object, as its DELETED event carries it.
func (o *Object) at(rv int64) *Object {
	return &Object{Stream: o.Stream, ResourceVersion: rv, Meta: o.Meta, Exists: o.Exists, state: o.state, kind: o.kind}
}

// resource is a Kind with its state type erased, as the hub holds it.
type resource interface {
	name() string
	prefix() string
	fold(prev *Object, rec events.Record) (*Object, error)
	adopt(prev *Object, rec events.Record, s any) (*Object, bool)
	encode(state any, rv int64) ([]byte, error)
	rows(ctx context.Context, after string, limit int) ([]*Object, []string, int64, error)
	restore(stream string, state []byte, rv int64) (*Object, error)
	validate() error
}

func (k *Kind[S]) name() string   { return k.Resource }
func (k *Kind[S]) prefix() string { return k.Prefix }

func (k *Kind[S]) object(stream string, s S, rv int64) *Object {
	return k.objectBoxed(stream, s, s, rv)
}

// objectBoxed is object with boxed, s already in an interface, as the
// object's state: a state the writer offered is held as it was offered,
// not boxed again.
func (k *Kind[S]) objectBoxed(stream string, s S, boxed any, rv int64) *Object {
	m, ok := k.Meta(s)
	return &Object{Stream: stream, ResourceVersion: rv, Meta: m, Exists: ok, state: boxed, kind: k}
}

// fold applies rec to prev (nil for an object never seen). On an error the
// object stays as it was, at the event's position.
func (k *Kind[S]) fold(prev *Object, rec events.Record) (*Object, error) {
	var s S
	if prev != nil {
		s = prev.state.(S)
	}
	next, err := k.Fold(s, rec)
	if err != nil {
		return k.object(rec.Stream, s, rec.Position).sharingMeta(prev), err
	}
	return k.object(rec.Stream, next, rec.Position).sharingMeta(prev), nil
}

// sharingMeta makes o share prev's key, labels and fields where they are
// equal, so that the versions of an object the hub keeps (latest, bases,
// recent events) hold one copy of them: most events, heartbeats above
// all, change none, and a Meta built anew for each event (a namespaced
// key joined into a string, fields boxed into an interface) leaves its
// copy to the collector.
func (o *Object) sharingMeta(prev *Object) *Object {
	if prev == nil || !prev.Exists || !o.Exists {
		return o
	}
	if o.Meta.Key == prev.Meta.Key {
		o.Meta.Key = prev.Meta.Key
	}
	if maps.Equal(o.Meta.Labels, prev.Meta.Labels) {
		o.Meta.Labels = prev.Meta.Labels
	}
	if sameFields(o.Meta.Fields, prev.Meta.Fields) {
		o.Meta.Fields = prev.Meta.Fields
	}
	return o
}

// sameFields reports whether a and b are equal values of one comparable
// type: fields kept as a map (fields.Set) are never taken as the same.
func sameFields(a, b Fields) bool {
	if a == nil || b == nil {
		return false
	}
	t := reflect.TypeOf(a)
	return t == reflect.TypeOf(b) && t.Comparable() && a == b
}

func (k *Kind[S]) encode(state any, rv int64) ([]byte, error) {
	return k.Encode(state.(S), rv)
}

// rows reads the view and returns its objects with their keys.
func (k *Kind[S]) rows(ctx context.Context, after string, limit int) ([]*Object, []string, int64, error) {
	rows, head, err := k.Rows(ctx, after, limit)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", k.Resource, err)
	}
	objs := make([]*Object, len(rows))
	keys := make([]string, len(rows))
	for i, r := range rows {
		objs[i] = k.object(r.Stream, r.State, r.ResourceVersion)
		keys[i] = r.Key
	}
	return objs, keys, head, nil
}

func (k *Kind[S]) validate() error {
	var errs []error
	if k.Resource == "" {
		errs = append(errs, errors.New("the Resource field is empty"))
	}
	if k.Prefix == "" {
		errs = append(errs, errors.New("the Prefix field is empty"))
	}
	if k.Fold == nil || k.Meta == nil || k.Encode == nil || k.Rows == nil {
		errs = append(errs, errors.New("the Fold, Meta, Encode and Rows fields are all required"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("watch: kind %q: %w", k.Resource, err)
	}
	return nil
}
