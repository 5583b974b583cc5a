package eventstest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testPayloadsApart: each record a read returns owns its payload. A
// reader that appends to one record's payload, or writes into it, changes
// neither the other records of the read nor the log, whichever read
// returned them.
func testPayloadsApart(t *testing.T, open OpenLogFunc) {
	s, _ := open(t)
	var evs []events.NewEvent
	for n := range 40 {
		evs = append(evs, ev("Tick", n))
	}
	appended := AppendCommit(t, s, "clock/a", 0, events.Metadata{Actor: "clock"}, t0, evs...)
	ctx := t.Context()
	for _, read := range []struct {
		name string
		read func(context.Context) ([]events.Record, error)
	}{
		{"ReadStream", func(ctx context.Context) ([]events.Record, error) { return s.ReadStream(ctx, "clock/a", 0) }},
		{"ReadAfter", func(ctx context.Context) ([]events.Record, error) { return s.ReadAfter(ctx, 0, 0) }},
		{"Query", func(ctx context.Context) ([]events.Record, error) {
			return s.Query(ctx, events.Filter{Stream: "clock/a"})
		}},
	} {
		t.Run(read.name, func(t *testing.T) {
			recs, err := read.read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(appended) {
				t.Fatalf("%d records, want %d", len(recs), len(appended))
			}
			for i := range recs {
				if i%2 == 0 {
					recs[i].Payload = append(recs[i].Payload, "garbage"...)
				} else {
					for j := range recs[i].Payload {
						recs[i].Payload[j] = 'x'
					}
				}
			}
			for i := range recs {
				want := string(appended[i].Payload)
				if i%2 == 0 {
					want += "garbage"
				} else {
					want = string(filled(len(want)))
				}
				if got := string(recs[i].Payload); got != want {
					t.Errorf("record %d's payload %q after the others' changes, want %q", i+1, got, want)
				}
			}
			again, err := read.read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(appended, again); diff != "" {
				t.Errorf("read again after a reader's changes (-appended +read):\n%s", diff)
			}
		})
	}
}

// filled is n bytes 'x'.
func filled(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'x'
	}
	return b
}
