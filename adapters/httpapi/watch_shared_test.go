package httpapi

import (
	goruntime "runtime"
	"testing"
	"time"

	"herd/projections/watch"
)

// TestBinaryEncodingsAreRenderedOncePerObjectAndDroppedWithIt: every
// watcher of an object gets the same bytes, rendered once per media type,
// and the entries go when the object does.
func TestBinaryEncodingsAreRenderedOncePerObjectAndDroppedWithIt(t *testing.T) {
	var c sharedEncodings
	renders := 0
	render := func() ([]byte, error) {
		renders++
		return []byte{byte(renders)}, nil
	}
	// The object lives only in this function, as an event the hub has
	// let go of.
	func() {
		o := &watch.Object{Stream: "node-n1", ResourceVersion: 7}
		first, _ := c.get(o, protobufType, render)
		again, _ := c.get(o, protobufType, render)
		if renders != 1 || &first[0] != &again[0] {
			t.Fatalf("rendered %d times, shared %v", renders, &first[0] == &again[0])
		}
		if _, err := c.get(o, "application/cbor", render); err != nil || renders != 2 {
			t.Fatalf("another media type: %v, rendered %d times in all, want 2", err, renders)
		}
	}()
	if c.len() != 2 {
		t.Fatalf("%d entries, want 2", c.len())
	}
	// Cleanups run after a collection, on their own goroutine.
	deadline := time.Now().Add(10 * time.Second)
	for c.len() > 0 && time.Now().Before(deadline) {
		goruntime.GC()
		goruntime.Gosched()
	}
	if n := c.len(); n != 0 {
		t.Fatalf("%d entries left after the object went", n)
	}
}
