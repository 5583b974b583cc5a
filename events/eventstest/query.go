package eventstest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func testQueryFilters(t *testing.T, open OpenLogFunc) {
	s, _ := open(t)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	none := events.Metadata{}
	alice := events.Metadata{Actor: "alice", Source: "httpapi"}
	a := AppendCommit(t, s, "node/a", 0, none, at(0), ev("NodeRegistered", 1), ev("HeartbeatRecorded", 2))
	b := AppendCommit(t, s, "node/b", 0, alice, at(1), ev("NodeRegistered", 1))
	z := AppendCommit(t, s, "nodes/z", 0, events.Metadata{Actor: "bob"}, at(2), ev("NodeRegistered", 1))
	p := AppendCommit(t, s, "pod/default/x", 0, events.CausedBy(b[0], "scheduler", "scheduler"), at(3), ev("PodScheduled", 1))
	a2 := AppendCommit(t, s, "node/a", 2, alice, at(4), ev("NodeTainted", 3))
	// What p led to in turn: b's effects are p and q.
	q := AppendCommit(t, s, "pod/default/x", 1, events.CausedBy(p[0], "kubelet", "kubelet"), at(5), ev("PodStarted", 2))
	all := concat(a, b, z, p, a2, q)

	tests := []struct {
		name   string
		filter events.Filter
		want   []events.Record
	}{
		{name: "no filter", filter: events.Filter{}, want: all},
		{name: "stream", filter: events.Filter{Stream: "node/a"}, want: concat(a, a2)},
		{name: "prefix stops at the prefix", filter: events.Filter{StreamPrefix: "node/"}, want: concat(a, b, a2)},
		{name: "prefix without separator", filter: events.Filter{StreamPrefix: "node"}, want: concat(a, b, z, a2)},
		{name: "one type", filter: events.Filter{Types: []string{"NodeRegistered"}}, want: concat(a[:1], b, z)},
		{name: "several types", filter: events.Filter{Types: []string{"PodScheduled", "NodeTainted"}}, want: concat(p, a2)},
		{name: "since is inclusive", filter: events.Filter{Since: at(3)}, want: concat(p, a2, q)},
		{name: "until is exclusive", filter: events.Filter{Until: at(1)}, want: a},
		{name: "time window", filter: events.Filter{Since: at(1), Until: at(3)}, want: concat(b, z)},
		{name: "after position", filter: events.Filter{After: p[0].Position}, want: concat(a2, q)},
		{name: "limit", filter: events.Filter{Limit: 2}, want: a},
		{name: "newest, in position order", filter: events.Filter{Limit: 2, Newest: true}, want: concat(a2, q)},
		{name: "newest of a stream", filter: events.Filter{Stream: "node/a", Limit: 2, Newest: true}, want: concat(a[1:], a2)},
		{name: "before position", filter: events.Filter{Before: b[0].Position}, want: a},
		{name: "newest of a stream up to a version", filter: events.Filter{Stream: "node/a", UpToVersion: 1, Limit: 1, Newest: true}, want: a[:1]},
		{name: "newest of a stream before a position", filter: events.Filter{Stream: "node/a", Before: a2[0].Position, Limit: 1, Newest: true}, want: a[1:]},
		{name: "everything at once", filter: events.Filter{StreamPrefix: "node/", Types: []string{"NodeRegistered", "NodeTainted"}, Since: at(0), Until: at(5), After: a[0].Position, Limit: 1}, want: b},
		{name: "id", filter: events.Filter{ID: p[0].ID}, want: p},
		{name: "id, the cause of an event", filter: events.Filter{ID: p[0].Metadata.CausationID}, want: b},
		{name: "id in capitals", filter: events.Filter{ID: strings.ToUpper(z[0].ID)}, want: z},
		{name: "an id that is no event's uuid", filter: events.Filter{ID: "req-1"}, want: nil},
		{name: "actor", filter: events.Filter{Actor: "alice"}, want: concat(b, a2)},
		{name: "actor is exact", filter: events.Filter{Actor: "ali"}, want: nil},
		{name: "actor of a stream", filter: events.Filter{Actor: "alice", StreamPrefix: "node/", Types: []string{"NodeTainted"}}, want: a2},
		{name: "newest of an actor", filter: events.Filter{Actor: "alice", Limit: 1, Newest: true}, want: a2},
		{name: "newest of an actor before a time", filter: events.Filter{Actor: "alice", Until: at(4), Limit: 1, Newest: true}, want: b},
		{name: "caused by", filter: events.Filter{CausationID: b[0].ID}, want: p},
		{name: "caused by nothing known", filter: events.Filter{CausationID: "req-1"}, want: nil},
		{name: "effects, transitively", filter: events.Filter{CausedBy: b[0].ID}, want: concat(p, q)},
		{name: "effects of the last in a chain", filter: events.Filter{CausedBy: q[0].ID}, want: nil},
		{name: "effects with other filters", filter: events.Filter{CausedBy: b[0].ID, Types: []string{"PodStarted"}}, want: q},
		{name: "the newest effect", filter: events.Filter{CausedBy: b[0].ID, Limit: 1, Newest: true}, want: q},
		{name: "effects of a request", filter: events.Filter{CausedBy: "req-1"}, want: nil},
		{name: "nothing matches", filter: events.Filter{Stream: "node/a", Types: []string{"PodScheduled"}}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Query(t.Context(), tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(positions(tt.want), positions(got)); diff != "" {
				t.Errorf("Query(%+v) positions (-want +got):\n%s", tt.filter, diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Query(%+v) (-want +got):\n%s", tt.filter, diff)
			}
			// Read one at a time, the same events.
			var each []events.Record
			if err := events.QueryEach(t.Context(), s, tt.filter, func(r *events.Record) error {
				kept := *r
				kept.Payload = slices.Clone(r.Payload)
				each = append(each, kept)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, each); diff != "" {
				t.Errorf("QueryEach(%+v) (-want +got):\n%s", tt.filter, diff)
			}
		})
	}
	t.Run("an error of the caller's ends the read", func(t *testing.T) {
		stop := errors.New("stop here")
		var read []int64
		err := events.QueryEach(t.Context(), s, events.Filter{StreamPrefix: "node/"}, func(r *events.Record) error {
			read = append(read, r.Position)
			return stop
		})
		if !errors.Is(err, stop) || len(read) != 1 || read[0] != a[0].Position {
			t.Errorf("QueryEach stopped at the first event: %v after %v, want %v after [%d]", err, read, stop, a[0].Position)
		}
	})
}

func concat(parts ...[]events.Record) []events.Record {
	var all []events.Record
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}
