package reconcilers

import (
	"fmt"
	"slices"

	"herd/domain"
	"herd/events"
)

// MapFunc maps one log record to the keys it concerns, as
// controller-runtime's handler.MapFunc maps an object to requests. The
// dispatcher calls it for every record of the types it was declared for,
// for every reconciler in turn, so it must be quick and do no I/O.
type MapFunc func(rec events.Record) []Key

// Watches is what a reconciler watches, declared once, in the manner of
// controller-runtime's builder: its own kinds (For), the kinds its
// objects control through owner references (Owns), and any other
// mapping that is truly its own (Watches: a pod's binding to the node it
// names). The runner derives from it the keys a record maps to and the
// keys the reconciler takes (Scope); no reconciler lists a kind's event
// types by hand, so a new event type of a declared kind is watched
// without anyone copying it into a list.
type Watches struct {
	scope Scope
	rules []rule
	// byType are the rules, by index, that each event type triggers;
	// composite events (HeartbeatMissed) are filed under their parts'
	// types too (EventTypesOf).
	byType map[string][]int
	kinds  []WatchedKind
	// lastOwned is the mapping of the kind the last Owns declared, for
	// Adopts.
	lastOwned *ownerMap
	after     func(rec events.Record, keys []Key)
	// unreadable is told of a record a derived mapping cannot decode,
	// which only a log written by a newer herd could hold: the runner
	// counts and logs it (herd_reconciler_poison_total).
	unreadable func(rec events.Record, err error)
}

// rule is one mapping and the event types it is for.
type rule struct {
	types EventTypes
	fn    MapFunc
}

// WatchedKind is one kind a reconciler declared with For or Owns: every
// event type of its streams maps to a key, but those of Except.
type WatchedKind struct {
	// Aggregate is the watched kind.
	Aggregate *domain.Aggregate
	// Owner is, for a kind declared with Owns, the kind of its
	// controllers (the reconciler's For kind); nil for a For kind.
	Owner *domain.Aggregate
	// Index is, for a kind declared with Owns, the index that maps its
	// objects to their controllers.
	Index *OwnerIndex
	// Except are the event types that map to no key: the reconciler's
	// own writes, or steps of an object that its owner does not count.
	Except EventTypes
}

// Watch starts a declaration of what a reconciler watches.
func Watch() *Watches { return &Watches{byType: map[string][]int{}} }

// For declares a kind of the reconciler's own, as controller-runtime's
// For does: its objects are the reconciler's keys, and every event of
// their streams maps to the object's key, except the types of except
// (typically the status the reconciler records itself). An except type
// that is not one of the kind's is a programming error, a panic.
func (w *Watches) For(a *domain.Aggregate, except ...domain.Event) *Watches {
	types := EventsOf(a, except...)
	w.kinds = append(w.kinds, WatchedKind{Aggregate: a, Except: exactTypes(except)})
	w.take(a)
	return w.Watches(types, KeysOf)
}

// Owns declares a kind whose objects are controlled by objects of the
// reconciler's For kind, as controller-runtime's Owns does with
// EnqueueRequestForOwner(OnlyControllerOwner): every event of an owned
// object's streams, except the types of except, maps to the key of the
// object that controls it, the one before the event and the one after
// when the event changes it. The owner references are read from the
// events that carry them (those whose payload has Owners: the object's
// creation, observation and owner changes); ix remembers them for the
// events that do not, and forgets the object at gone, its last event.
// For must come first, with exactly one kind; a reconciler may own
// several kinds (a StatefulSet its pods and its ControllerRevisions),
// each declared with its own Owns and index, once.
func (w *Watches) Owns(owned *domain.Aggregate, ix *OwnerIndex, gone domain.Event, except ...domain.Event) *Watches {
	if len(w.kinds) == 0 || w.kinds[0].Owner != nil || slices.ContainsFunc(w.kinds[1:], func(k WatchedKind) bool { return k.Owner == nil }) {
		panic(fmt.Sprintf("reconcilers: Owns(%s) needs one For kind before it", owned.Name()))
	}
	if slices.ContainsFunc(w.kinds, func(k WatchedKind) bool { return k.Aggregate == owned }) {
		panic(fmt.Sprintf("reconcilers: Owns(%s): the kind is declared already", owned.Name()))
	}
	owner := w.kinds[0].Aggregate
	types := EventsOf(owned, except...)
	if !types.types[gone.EventType()] || !slices.ContainsFunc(owned.Events(), func(s domain.EventSchema) bool { return s.Type == gone.EventType() }) {
		panic(fmt.Sprintf("reconcilers: Owns(%s): %s is not one of its watched events", owned.Name(), gone.EventType()))
	}
	carriers := typesWhere(owned, domain.CarriesOwners)
	w.kinds = append(w.kinds, WatchedKind{Aggregate: owned, Owner: owner, Index: ix, Except: exactTypes(except)})
	m := &ownerMap{w: w, ix: ix, owned: owned, owner: owner, carriers: carriers, gone: gone.EventType()}
	w.lastOwned = m
	return w.Watches(types, m.keys)
}

// Adopts declares that the reconciler adopts the orphans of the kind
// declared by the Owns just before, as Kubernetes' controllers do: an
// object of that kind created or relabelled without a controller maps
// also to the key of every object of the For kind in its namespace
// whose selector, as sx holds it, matches its labels, so that an orphan
// is adopted when it comes and not at the next resync. A
// relabelled object's owners are not in its event: one the index knows
// no controller of maps to those keys, and a reconcile of an owner that
// finds it controlled by another kind leaves it. Adopts with no Owns
// before it is a programming error, a panic.
func (w *Watches) Adopts(sx *SelectorIndex) *Watches {
	if w.lastOwned == nil {
		panic("reconcilers: Adopts needs an Owns before it")
	}
	w.lastOwned.selectors = sx
	w.lastOwned.labelled = typesWhere(w.lastOwned.owned, func(ev domain.Event) bool {
		_, ok := ev.(domain.LabelsCarrier)
		return ok
	})
	return w
}

// typesWhere is the set of a's event types whose events is accepts, read
// from a zero event of each; a type that cannot be made is a programming
// error, a panic.
func typesWhere(a *domain.Aggregate, is func(domain.Event) bool) map[string]bool {
	out := map[string]bool{}
	for _, s := range a.Events() {
		ev, err := domain.UnmarshalEvent(s.Type, []byte("{}"))
		if err != nil {
			panic(fmt.Sprintf("reconcilers: %s's %s: %v", a.Name(), s.Type, err))
		}
		if is(ev) {
			out[s.Type] = true
		}
	}
	return out
}

// Watches declares a mapping of the reconciler's own: records of the
// types of types map to the keys fn gives (a pod's binding to its node,
// a pod's end to its namespace). fn's keys must be in the reconciler's
// scope: of a For kind, of a kind named by Takes, or a pass named by
// Passes.
func (w *Watches) Watches(types EventTypes, fn MapFunc) *Watches {
	i := len(w.rules)
	w.rules = append(w.rules, rule{types: types, fn: fn})
	for t := range types.types {
		w.byType[t] = append(w.byType[t], i)
	}
	return w
}

// Takes declares kinds whose objects are the reconciler's keys besides
// its For kinds (a disruption budget's namespace, counted as one), for
// the keys of its Watches and resyncs.
func (w *Watches) Takes(aggregates ...*domain.Aggregate) *Watches {
	w.take(aggregates...)
	return w
}

// Passes declares the reconciler's passes (see Pass), keys that name no
// object.
func (w *Watches) Passes(keys ...Key) *Watches {
	for _, k := range keys {
		if !k.IsPass() {
			panic(fmt.Sprintf("reconcilers: %s is not a pass", k))
		}
		if !slices.Contains(w.scope.Passes, k) {
			w.scope.Passes = append(w.scope.Passes, k)
		}
	}
	return w
}

// Then declares what the reconciler does with the keys of each record
// once they are derived (remember them, pace them), before they are
// queued; like a MapFunc it must be quick and do no I/O.
func (w *Watches) Then(fn func(rec events.Record, keys []Key)) *Watches {
	w.after = fn
	return w
}

func (w *Watches) take(aggregates ...*domain.Aggregate) {
	for _, a := range aggregates {
		if !slices.Contains(w.scope.Aggregates, a) {
			w.scope.Aggregates = append(w.scope.Aggregates, a)
		}
	}
}

// Scope is the keys the reconciler takes: objects of its For and Takes
// kinds, and its passes.
func (w *Watches) Scope() Scope { return w.scope }

// Kinds are the kinds declared with For and Owns, in order.
func (w *Watches) Kinds() []WatchedKind { return slices.Clone(w.kinds) }

// KeysFor maps one log record to the keys it may affect: the union, each
// key once, of what every rule declared for its type gives, in the order
// declared. A record of a type no rule is for costs one map lookup.
func (w *Watches) KeysFor(rec events.Record) []Key {
	rules := w.byType[rec.Type]
	if len(rules) == 0 {
		return nil
	}
	var keys []Key
	for _, i := range rules {
		for _, k := range w.rules[i].fn(rec) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	if w.after != nil {
		w.after(rec, keys)
	}
	return keys
}

// EventsOf is the set of every event type of a's streams, but those of
// except; an except type that is not one of a's is a programming error,
// a panic.
func EventsOf(a *domain.Aggregate, except ...domain.Event) EventTypes {
	s := EventTypes{types: map[string]bool{}}
	for _, e := range a.Events() {
		s.types[e.Type] = true
	}
	for _, e := range except {
		if !s.types[e.EventType()] {
			panic(fmt.Sprintf("reconcilers: %s is not an event of %s", e.EventType(), a.Name()))
		}
		delete(s.types, e.EventType())
	}
	return s
}

// Has reports whether the set holds the event type typ, as stored.
func (s EventTypes) Has(typ string) bool { return s.types[typ] }

// exactTypes is the set of the types of evs, without their carriers.
func exactTypes(evs []domain.Event) EventTypes {
	s := EventTypes{types: make(map[string]bool, len(evs))}
	for _, e := range evs {
		s.types[e.EventType()] = true
	}
	return s
}

// ToPass is a MapFunc that maps every record to the pass k (the
// scheduler's pass over the pending pods).
func ToPass(k Key) MapFunc {
	keys := []Key{k}
	return func(events.Record) []Key { return keys }
}

// ToNamespace is a MapFunc that maps an event of a namespaced object to
// the key of its namespace; the namespace is in the stream's name, so
// nothing is decoded.
func ToNamespace(rec events.Record) []Key {
	k, ok := KeyOf(rec)
	if !ok || k.Namespace == "" {
		return nil
	}
	return []Key{{Aggregate: domain.NamespaceAggregate, Name: k.Namespace}}
}

// ToBoundNode is a MapFunc that maps a pod's binding (PodScheduled) to
// the key of the node it binds the pod to, for a reconciler of nodes that
// a new pod may concern (one draining, one with a NoExecute taint). A
// binding that cannot be decoded, which only a log written by a newer
// herd could hold, maps to none and is reported as an owned object's is.
func (w *Watches) ToBoundNode(rec events.Record) []Key {
	ev, err := Decode[domain.PodScheduled](rec)
	if err != nil {
		w.report(rec, err)
		return nil
	}
	return []Key{{Aggregate: domain.NodeAggregate, Name: ev.NodeName}}
}

// report tells the runner of a record a mapping cannot decode.
func (w *Watches) report(rec events.Record, err error) {
	if w.unreadable != nil {
		w.unreadable(rec, err)
	}
}

// ownerMap maps the events of an owned kind to their controllers.
type ownerMap struct {
	w            *Watches
	ix           *OwnerIndex
	owned, owner *domain.Aggregate
	// carriers are the owned kind's event types whose payload carries
	// the object's owner references.
	carriers map[string]bool
	gone     string
	// selectors are the owners' selectors when the reconciler adopts
	// orphans (Adopts), nil when it does not; labelled are then the
	// owned kind's event types whose payload carries the object's labels.
	selectors *SelectorIndex
	labelled  map[string]bool
}

// keys is the key of the controller the event leaves the object with,
// and of the one before when the event changes it; the index follows.
// An event that cannot be decoded, which only a log written by a newer
// herd could hold, maps to none and is reported: the resync still finds
// its controller.
func (m *ownerMap) keys(rec events.Record) []Key {
	k, ok := KeyOf(rec)
	if !ok || k.Aggregate != m.owned {
		return nil
	}
	obj := domain.Key{Namespace: k.Namespace, Name: k.Name}
	keys := func(names ...string) []Key {
		var out []Key
		for _, n := range names {
			if n != "" && !slices.ContainsFunc(out, func(k Key) bool { return k.Name == n }) {
				out = append(out, Key{Aggregate: m.owner, Namespace: obj.Namespace, Name: n})
			}
		}
		return out
	}
	switch {
	case rec.Type == m.gone:
		return keys(m.ix.Set(obj, ""))
	case m.carriers[rec.Type]:
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			m.w.report(rec, err)
			return nil
		}
		var owners []domain.OwnerReference
		if c, ok := ev.(domain.OwnersCarrier); ok {
			owners = c.OwnerReferences()
		}
		now := m.ix.Controller(owners)
		out := keys(m.ix.Set(obj, now), now)
		if m.selectors != nil && !slices.ContainsFunc(owners, func(o domain.OwnerReference) bool { return o.Controller }) {
			out = m.adopters(out, obj.Namespace, ev)
		}
		return out
	case m.selectors != nil && m.labelled[rec.Type]:
		was := m.ix.Get(obj)
		if was != "" {
			return keys(was)
		}
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			m.w.report(rec, err)
			return nil
		}
		return m.adopters(nil, obj.Namespace, ev)
	default:
		return keys(m.ix.Get(obj))
	}
}

// adopters is keys and the keys of the owners in namespace whose selector
// matches the labels ev leaves an orphan with.
func (m *ownerMap) adopters(keys []Key, namespace string, ev domain.Event) []Key {
	c, ok := ev.(domain.LabelsCarrier)
	if !ok {
		return keys
	}
	for _, name := range m.selectors.Matching(namespace, c.ObjectLabels()) {
		k := Key{Aggregate: m.owner, Namespace: namespace, Name: name}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}
