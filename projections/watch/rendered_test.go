package watch_test

import (
	"errors"
	"testing"

	"herd/projections/watch"
)

// TestAnObjectRendersEachFormOnce: every client of an object version gets
// the same bytes of each form (a watch event's protobuf, a list item's),
// rendered once per form; a rendering that fails is not kept.
func TestAnObjectRendersEachFormOnce(t *testing.T) {
	type form struct{ mediaType string }
	o := &watch.Object{Stream: "node/n1", ResourceVersion: 7}
	renders := 0
	render := func() ([]byte, error) {
		renders++
		return []byte{byte(renders)}, nil
	}
	first, _ := o.Rendered(form{"application/vnd.kubernetes.protobuf"}, render)
	again, _ := o.Rendered(form{"application/vnd.kubernetes.protobuf"}, render)
	if renders != 1 || &first[0] != &again[0] {
		t.Fatalf("rendered %d times, shared %v", renders, &first[0] == &again[0])
	}
	if _, err := o.Rendered(form{"application/cbor"}, render); err != nil || renders != 2 {
		t.Fatalf("another form: %v, rendered %d times in all, want 2", err, renders)
	}
	failed := errors.New("no encoding")
	if _, err := o.Rendered(form{"text/plain"}, func() ([]byte, error) { return nil, failed }); !errors.Is(err, failed) {
		t.Fatalf("a failing rendering: %v", err)
	}
	if data, err := o.Rendered(form{"text/plain"}, render); err != nil || renders != 3 || data[0] != 3 {
		t.Fatalf("after a failure: %v, %v, rendered %d times, want it tried again", data, err, renders)
	}
}
