package whatif

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/goccy/go-json"

	"herd/domain"
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
// window's start since, which herd's reconcilers take as herd had left
// it and do not decide again. Positions and ids are the simulated log's
// own; a cause is pointed at the copy of the event it named, so that
// chains of causes hold in the copy. It returns the simulated log's head.
//
// The copy is thinned as herd's retention policy would have thinned the
// log at since (see thinned): heartbeats and lease renewals older than
// projections.DefaultHeartbeatRetention that a later one supersedes are
// left out. They are nearly all of a day's log and set nothing the
// fleet at since does not hold, so the copy costs the fleet's history,
// not its reports.
func seed(ctx context.Context, source events.Log, upTo int64, since time.Time, path string) (int64, error) {
	store, err := events.Open(ctx, events.Config{Path: path, Scratch: true}, nil)
	if err != nil {
		return 0, fmt.Errorf("the what-if's log: %w", err)
	}
	sim := store.Log()
	defer func() { _ = sim.Close() }() // each batch is committed as it goes
	if err := projections.Migrate(ctx, sim); err != nil {
		return 0, err
	}
	skip, err := thinned(ctx, source, upTo, since.Add(-projections.DefaultHeartbeatRetention))
	if err != nil {
		return 0, err
	}
	versions := map[string]int64{}
	ids := map[string]string{}
	var head int64
	err = seedRecords(ctx, source, upTo, skip, func(recs []events.Record) error {
		var err error
		head, err = copyRecords(ctx, sim, recs, versions, ids)
		return err
	})
	if err != nil {
		return 0, err
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

// seedRecords hands copy the source's events up to position upTo that
// the thinning skip leaves, in log order, in batches. Before the
// thinning's cut it reads the log less its heartbeats and renewals, and
// those skip keeps one by one: the cut leaves a few of a day's hundreds
// of thousands, which the database passes over without handing them to
// herd. From the cut on it reads every event.
func seedRecords(ctx context.Context, source events.Log, upTo int64, skip thinning, copy func([]events.Record) error) error {
	var from int64
	if skip.before > 1 {
		kept := slices.Sorted(maps.Keys(skip.keep))
		for {
			recs, err := source.Query(ctx, events.Filter{ExceptTypes: compactedTypes, After: from, Before: skip.before, Limit: seedBatch})
			if err != nil {
				return err
			}
			// This batch reaches to its last event, or to the cut.
			end := skip.before - 1
			if len(recs) == seedBatch {
				end = recs[len(recs)-1].Position
			}
			n := 0
			for n < len(kept) && kept[n] <= end {
				n++
			}
			if n > 0 {
				if recs, err = withKept(ctx, source, recs, kept[:n]); err != nil {
					return err
				}
				kept = kept[n:]
			}
			if len(recs) > 0 {
				if err := copy(recs); err != nil {
					return err
				}
			}
			from = end
			if end >= skip.before-1 {
				break
			}
		}
	}
	for from < upTo {
		recs, err := source.ReadAfter(ctx, from, seedBatch)
		if err != nil {
			return err
		}
		n := len(recs)
		for n > 0 && recs[n-1].Position > upTo {
			n--
		}
		if n == 0 {
			return nil
		}
		if err := copy(recs[:n]); err != nil {
			return err
		}
		if n < len(recs) || len(recs) < seedBatch {
			return nil
		}
		from = recs[n-1].Position
	}
	return nil
}

// withKept is recs, in log order, with the events at the positions kept
// read from source and put in their places.
func withKept(ctx context.Context, source events.LogReader, recs []events.Record, kept []int64) ([]events.Record, error) {
	out := make([]events.Record, 0, len(recs)+len(kept))
	for _, p := range kept {
		got, err := source.ReadAfter(ctx, p-1, 1)
		if err != nil {
			return nil, err
		}
		if len(got) != 1 || got[0].Position != p {
			return nil, fmt.Errorf("the what-if's seed: the source's event at position %d is gone", p)
		}
		out = append(out, got[0])
	}
	out = append(out, recs...)
	slices.SortFunc(out, func(a, b events.Record) int { return cmp.Compare(a.Position, b.Position) })
	return out, nil
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

// compactedTypes are the frequent events herd's retention policy thins
// (projections.Compactor): a node's heartbeats and a lease's renewals.
var compactedTypes = []string{domain.HeartbeatRecorded{}.EventType(), domain.LeaseRenewed{}.EventType()}

// thinning says which of the source's events before a cut the seed
// leaves out.
type thinning struct {
	// before is the first position the thinning does not reach.
	before int64
	// keep are the positions, before it, of the heartbeats and renewals
	// kept: those no later one before the cut supersedes.
	keep map[int64]bool
}

// thinned finds, in source up to upTo, the heartbeats and lease renewals
// recorded before cut that herd's retention policy deletes
// (projections.Compactor): those a later one of the same stream, also
// before the cut, supersedes (domain.HeartbeatRecorded.Supersedes; any
// renewal supersedes the one before). What stays is, per stream, the
// newest and an older one only where the newest does not set all it set,
// so every view and reconciler reads the same fleet from the thinned
// copy; herd itself runs on a log thinned so. A source that cannot be
// read by type is copied whole.
func thinned(ctx context.Context, source events.Log, upTo int64, cut time.Time) (thinning, error) {
	c, ok := source.(events.Compactable)
	if !ok {
		return thinning{}, nil
	}
	before, err := c.FirstRecordedAt(ctx, cut)
	if err != nil {
		return thinning{}, err
	}
	before = min(before, upTo+1)
	type beat struct {
		pos   int64
		shape domain.Event
	}
	pending := map[string][]beat{}
	for _, typ := range compactedTypes {
		for after := int64(0); ; {
			recs, err := c.ReadTypeRange(ctx, typ, after, before, seedBatch)
			if err != nil {
				return thinning{}, err
			}
			for _, r := range recs {
				shape, err := shapeOf(r)
				if err != nil {
					return thinning{}, fmt.Errorf("the what-if's seed: %s@%d (position %d): %w", r.Stream, r.Version, r.Position, err)
				}
				waiting := pending[r.Stream][:0]
				for _, p := range pending[r.Stream] {
					if !domain.Supersedes(shape, p.shape) {
						waiting = append(waiting, p)
					}
				}
				pending[r.Stream] = append(waiting, beat{pos: r.Position, shape: shape})
			}
			if len(recs) < seedBatch {
				break
			}
			after = recs[len(recs)-1].Position
		}
	}
	t := thinning{before: before, keep: map[int64]bool{}}
	for _, beats := range pending {
		for _, b := range beats {
			t.keep[b.pos] = true
		}
	}
	return t, nil
}

// shapeOf is heartbeat r with only which figures it carries, or a
// renewal: what supersedes compares. The figures are not decoded: a day
// of reports is most of the seed's reading.
func shapeOf(r events.Record) (domain.Event, error) {
	if r.Type != (domain.HeartbeatRecorded{}).EventType() {
		return domain.LeaseRenewed{}, nil
	}
	var figures struct {
		Metrics json.RawMessage `json:"metrics"`
		Kubelet json.RawMessage `json:"kubelet"`
	}
	if err := json.Unmarshal(r.Payload, &figures); err != nil {
		return nil, err
	}
	var s domain.HeartbeatRecorded
	if present(figures.Metrics) {
		s.Metrics = &domain.Metrics{}
	}
	if present(figures.Kubelet) {
		s.Kubelet = &domain.KubeletMetrics{}
	}
	return s, nil
}

// present says whether a field of a payload is there and not null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}
