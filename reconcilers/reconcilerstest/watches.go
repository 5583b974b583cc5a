package reconcilerstest

import (
	"slices"
	"testing"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// WatchesEveryEvent checks w's derived mapping against the domain: a
// record of every event type of each kind w declares with For maps to
// its object's key, and one of each kind declared with Owns to the key
// of the object's controller, save the types the declaration excepts,
// which map to neither. It reads the types from the domain's aggregates,
// so a new event type of a watched kind is checked without the test
// naming it. It also fails a declaration of no kind at all, so that a
// reconciler that stops declaring its kinds is noticed.
func WatchesEveryEvent(t testing.TB, w *reconcilers.Watches) {
	t.Helper()
	kinds := w.Kinds()
	if len(kinds) == 0 {
		t.Fatal("the reconciler declares no kind with For or Owns")
	}
	for _, kind := range kinds {
		a := kind.Aggregate
		obj := domain.Key{Name: "watched-object"}
		if a.Namespaced() {
			obj.Namespace = "watched-namespace"
		}
		stream := a.Stream(obj.Name)
		if a.Namespaced() {
			stream = a.Stream(obj.Namespace + "/" + obj.Name)
		}
		for _, s := range a.Events() {
			want := reconcilers.Key{Aggregate: a, Namespace: obj.Namespace, Name: obj.Name}
			if kind.Owner != nil {
				// The controller is known from before the event, as the
				// index knows it of an object created earlier.
				kind.Index.Set(obj, "watched-owner")
				want = reconcilers.Key{Aggregate: kind.Owner, Namespace: obj.Namespace, Name: "watched-owner"}
			}
			got := w.KeysFor(events.Record{Stream: stream, Type: s.Type, Payload: []byte("{}"), Position: 1})
			switch mapped := slices.Contains(got, want); {
			case kind.Except.Has(s.Type) && mapped:
				t.Errorf("%s %s, which the declaration excepts, maps to %s", a.Name(), s.Type, want)
			case !kind.Except.Has(s.Type) && !mapped:
				t.Errorf("%s %s maps to %v, want %s among them", a.Name(), s.Type, Strings(got), want)
			}
		}
		if kind.Index != nil {
			kind.Index.Set(obj, "")
		}
	}
}
