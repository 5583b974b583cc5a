package whatif

import (
	"context"
	"fmt"
	"time"

	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// seedBatch is how many events the seed copies per read and commit.
const seedBatch = 5000

// seed writes into the empty SQLite file at path every event of source
// up to and including position upTo, as it was recorded (stream, type,
// payload, time, who and why), builds the views from them and places the
// reconcilers' dispatcher after them: the fleet as it was at the
// window's start, which herd's reconcilers take as herd had left it and
// do not decide again. Positions and ids are the simulated log's own; a
// cause is pointed at the copy of the event it named, so that chains of
// causes hold in the copy. It returns the simulated log's head.
func seed(ctx context.Context, source events.Log, upTo int64, path string) (int64, error) {
	store, err := events.Open(ctx, events.Config{Path: path}, nil)
	if err != nil {
		return 0, fmt.Errorf("the what-if's log: %w", err)
	}
	sim := store.Log()
	defer func() { _ = sim.Close() }() // each batch is committed as it goes
	if err := projections.Migrate(ctx, sim); err != nil {
		return 0, err
	}
	versions := map[string]int64{}
	ids := map[string]string{}
	var head int64
	for from := int64(0); from < upTo; {
		recs, err := source.ReadAfter(ctx, from, seedBatch)
		if err != nil {
			return 0, err
		}
		if len(recs) == 0 {
			break
		}
		n := len(recs)
		for n > 0 && recs[n-1].Position > upTo {
			n--
		}
		if n == 0 {
			break
		}
		if head, err = copyRecords(ctx, sim, recs[:n], versions, ids); err != nil {
			return 0, err
		}
		from = recs[n-1].Position
		if n < len(recs) {
			break
		}
	}
	if _, err := projections.Rebuild(ctx, sim, projections.RebuildOptions{Now: func() time.Time { return time.Unix(0, 0).UTC() }}); err != nil {
		return 0, fmt.Errorf("the what-if's views: %w", err)
	}
	if head > 0 {
		if err := sim.SaveGroupPosition(ctx, reconcilers.ConsumerGroup, head); err != nil {
			return 0, err
		}
	}
	return head, nil
}

// copyRecords appends recs to sim in one transaction, each run of one
// command's events (one stream, one time, one metadata) in one append.
func copyRecords(ctx context.Context, sim events.Log, recs []events.Record, versions map[string]int64, ids map[string]string) (int64, error) {
	tx, err := sim.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	var head int64
	for i := 0; i < len(recs); {
		j := i + 1
		for j < len(recs) && sameCommand(recs[i], recs[j]) {
			j++
		}
		run := recs[i:j]
		evs := make([]events.NewEvent, len(run))
		for k, r := range run {
			evs[k] = events.NewEvent{Type: r.Type, SchemaVersion: r.SchemaVersion, Payload: r.Payload}
		}
		md := run[0].Metadata
		md.CausationID = translate(ids, md.CausationID)
		md.CorrelationID = translate(ids, md.CorrelationID)
		out, err := tx.Append(ctx, run[0].Stream, versions[run[0].Stream], md, run[0].RecordedAt, evs...)
		if err != nil {
			return 0, fmt.Errorf("copy %s into the what-if's log: %w", run[0].Stream, err)
		}
		versions[run[0].Stream] += int64(len(out))
		for k, r := range out {
			ids[run[k].ID] = r.ID
			head = r.Position
		}
		i = j
	}
	return head, tx.Commit()
}

// translate is the copy's id of the source's event id, or id as it is
// when the copy holds no such event (a request's id).
func translate(ids map[string]string, id string) string {
	if t, ok := ids[id]; ok {
		return t
	}
	return id
}

// sameCommand says whether b, which follows a in the log, was appended by
// the same command: the same stream, at the same time, by the same actor
// for the same cause.
func sameCommand(a, b events.Record) bool {
	return a.Stream == b.Stream && a.RecordedAt.Equal(b.RecordedAt) && a.Metadata == b.Metadata
}
