package whatif

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// countingLog is a log that holds some records, answers a query by ID
// from them, and counts the queries.
type countingLog struct {
	events.LogReader
	recs    map[string]events.Record
	queried []string
}

func (l *countingLog) Query(_ context.Context, f events.Filter) ([]events.Record, error) {
	l.queried = append(l.queried, f.ID)
	if rec, ok := l.recs[f.ID]; ok && f.Limit == 1 {
		return []events.Record{rec}, nil
	}
	return nil, nil
}

// A decision's chain of causes is followed through the simulated
// window's records the report holds, and only a cause from before the
// window is read from the log: an hour of a fleet's decisions no longer
// costs a query per cause.
func TestCausesInTheWindowAreFoundWithoutAQuery(t *testing.T) {
	at := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	rec := func(id, typ, stream, cause string, s int) events.Record {
		return events.Record{ID: id, Type: typ, Stream: stream, RecordedAt: at.Add(time.Duration(s) * time.Second),
			Metadata: events.Metadata{Actor: "system:herd:health", CausationID: cause}}
	}
	seeded := rec("seeded", "NodeRegistered", "node/web-01", "", 0)
	turned := rec("turned", "NodeConditionChanged", "node/web-01", "seeded", 10)
	tainted := rec("tainted", "NodeTainted", "node/web-01", "turned", 11)
	evicted := rec("evicted", "PodDeletionRequested", "pod/default/web", "tainted", 12)
	log := &countingLog{recs: map[string]events.Record{"seeded": seeded, "turned": turned, "tainted": tainted}}

	got := causes(t.Context(), newCauseLog(log, []events.Record{turned, tainted, evicted}), evicted, nil)
	want := []Cause{
		{Type: "NodeTainted", Stream: "node/web-01", Actor: "system:herd:health", At: tainted.RecordedAt},
		{Type: "NodeConditionChanged", Stream: "node/web-01", Actor: "system:herd:health", At: turned.RecordedAt},
		{Type: "NodeRegistered", Stream: "node/web-01", Actor: "system:herd:health", At: seeded.RecordedAt},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the chain of causes (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"seeded"}, log.queried); d != "" {
		t.Errorf("the causes read from the log (-want +got):\n%s", d)
	}

	log.queried = nil
	if got := causes(t.Context(), newCauseLog(log, nil), rec("lost", "NodeTainted", "node/web-02", "gone", 13), nil); len(got) != 0 {
		t.Errorf("a cause the log does not hold: %+v, want an empty chain", got)
	}
	if d := cmp.Diff([]string{"gone"}, log.queried); d != "" {
		t.Errorf("a cause in no record held is read from the log (-want +got):\n%s", d)
	}
}
