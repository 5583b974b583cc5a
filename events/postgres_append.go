package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
)

// commitChannel is the channel NOTIFY announces commits on; its payload
// is the newest position the transaction appended.
const commitChannel = "herd_events"

// pgInsertEvents inserts the rows, each at a position from the
// sequence, only if the stream ($11) is at the expected version ($12):
// a stale append inserts nothing, takes no position and fails nothing,
// so the transaction stays usable. Two appenders that both read the
// stream at the expected version race on UNIQUE (stream, version): the
// second waits for the first to end, and once it has committed, skips
// the rows the first stored (ON CONFLICT DO NOTHING, no error, so again
// no savepoint is needed); insert then reports a *ConflictError. The
// positions come back with each row's version, in any order.
//
// Positions follow the rows' order: ORDER BY the arrays' ordinality
// makes PostgreSQL take each row's nextval in that order whatever plan
// it picks (since 9.6 a volatile function of the select list is
// evaluated after the sort); the array scan already yields that order,
// so the plan has no sort to run.
//
// The events of one append share their actor and cause ($9, $10), which
// their metadata holds too and which are columns of their own for the
// audit indexes (migration 0008_audit_columns.sql).
const pgInsertEvents = `INSERT INTO events (position, event_id, stream, version, type, schema_version, recorded_at, payload, metadata, actor, causation_id, txid)
SELECT nextval('events_position'), e.event_id, e.stream, e.version, e.type, e.schema_version, e.recorded_at, e.payload, e.metadata, $9::text, $10::text, pg_current_xact_id()
FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::integer[], $6::bigint[], $7::bytea[], $8::bytea[]) WITH ORDINALITY
  AS e(event_id, stream, version, type, schema_version, recorded_at, payload, metadata, ord)
WHERE (SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = $11) = $12
ORDER BY e.ord
ON CONFLICT (stream, version) DO NOTHING
RETURNING version, position`

// pgUndoInsert deletes the rows an append stored before finding that
// another transaction had stored some of its versions: the append
// stores all of its events or none. Their positions stay unused.
const pgUndoInsert = `DELETE FROM events WHERE position = ANY($1::bigint[])`

// pgTakeXid gives the transaction its xid and the appenders' advisory
// lock (shared, so appenders do not wait for each other) before it takes
// any position: herd_log_head (migration 0007) waits for the
// transactions that hold the lock, and relies on every transaction that
// holds a position having had both first.
const pgTakeXid = `SELECT pg_current_xact_id(), pg_advisory_xact_lock_shared(1751478884, 1)`

// postgresTx is one transaction on the PostgreSQL log.
type postgresTx struct {
	p *Postgres
	// conn is the connection the transaction runs on, kept from the pool
	// until Commit or Rollback hands it back.
	conn *sql.Conn
	txSavepoints
	// hasXid is whether the transaction has its xid and the appenders'
	// lock (pgTakeXid). A rollback to a savepoint keeps the xid (the top
	// transaction's) but releases the lock if it was taken since:
	// xidMarks holds hasXid at each open savepoint, innermost last.
	hasXid   bool
	xidMarks []bool
}

// Savepoint implements LogTx.
func (t *postgresTx) Savepoint(ctx context.Context) error {
	if err := t.txSavepoints.Savepoint(ctx); err != nil {
		return err
	}
	t.xidMarks = append(t.xidMarks, t.hasXid)
	return nil
}

// RollbackToSavepoint implements LogTx; the savepoint stays open.
func (t *postgresTx) RollbackToSavepoint(ctx context.Context) error {
	if err := t.txSavepoints.RollbackToSavepoint(ctx); err != nil {
		return err
	}
	if n := len(t.xidMarks); n > 0 {
		t.hasXid = t.xidMarks[n-1]
	}
	return nil
}

// ReleaseSavepoint implements LogTx: what was taken in it is the
// enclosing transaction's now.
func (t *postgresTx) ReleaseSavepoint(ctx context.Context) error {
	if err := t.txSavepoints.ReleaseSavepoint(ctx); err != nil {
		return err
	}
	if n := len(t.xidMarks); n > 0 {
		t.xidMarks = t.xidMarks[:n-1]
	}
	return nil
}

func (t *postgresTx) Engine() Engine { return EnginePostgres }

func (t *postgresTx) reader() pgReader {
	return pgReader{q: t.tx, since: &t.p.published, own: t.last}
}

func (t *postgresTx) Head(ctx context.Context) (int64, error) { return t.reader().Head(ctx) }

func (t *postgresTx) ReadStream(ctx context.Context, stream string, afterVersion int64) ([]Record, error) {
	return t.reader().ReadStream(ctx, stream, afterVersion)
}

func (t *postgresTx) ReadAfter(ctx context.Context, position int64, limit int) ([]Record, error) {
	return t.reader().ReadAfter(ctx, position, limit)
}

func (t *postgresTx) ReadStreamRange(ctx context.Context, stream string, after, upTo int64) ([]Record, error) {
	return t.reader().ReadStreamRange(ctx, stream, after, upTo)
}

func (t *postgresTx) Query(ctx context.Context, f Filter) ([]Record, error) {
	return t.reader().Query(ctx, f)
}

// Append stores evs in a savepoint of its own: PostgreSQL aborts a
// transaction on a refused row, and the savepoint keeps the transaction
// usable after a conflict, as the contract asks.
func (t *postgresTx) Append(ctx context.Context, stream string, expectedVersion int64, md Metadata, at time.Time, evs ...NewEvent) ([]Record, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	if err := checkAppend(stream, expectedVersion, at, evs); err != nil {
		return nil, err
	}
	records, cols, err := newRecords(stream, expectedVersion, md, at, evs)
	if err != nil {
		return nil, err
	}
	if err := t.insert(ctx, stream, expectedVersion, records, cols); err != nil {
		return nil, err
	}
	t.appended(maxPosition(records))
	return records, nil
}

// insert inserts the rows if the stream is at the expected version
// and gives each its position; if it is not, or another transaction
// stored one of its versions first, it inserts nothing and returns a
// *ConflictError. One round trip, and one more in a transaction's first
// append.
func (t *postgresTx) insert(ctx context.Context, stream string, expected int64, records []Record, cols insertColumns) error {
	if !t.hasXid {
		if _, err := t.tx.ExecContext(ctx, pgTakeXid); err != nil {
			return fmt.Errorf("append %s@%d: %w", stream, expected, err)
		}
		t.hasXid = true
	}
	rows, err := t.tx.QueryContext(ctx, pgInsertEvents, cols.ids, cols.streams, cols.versions, cols.types,
		cols.schemas, cols.recorded, cols.payloads, cols.metadata, cols.actor, cols.causation, stream, expected)
	if isDeadlock(err) {
		// Waiting on another replica's append of this stream closed a
		// cycle of waits, and PostgreSQL chose this append to end it:
		// the other stores the version. The caller rolls back to its
		// savepoint (the statement failed) and decides again.
		return &ConflictError{Stream: stream, Expected: expected, Actual: -1}
	}
	if err != nil {
		return fmt.Errorf("append %s@%d: %w", stream, expected, err)
	}
	stored := make([]int64, 0, len(records))
	for rows.Next() {
		var version, position int64
		if err := rows.Scan(&version, &position); err != nil {
			_ = rows.Close()
			return fmt.Errorf("append %s@%d: %w", stream, expected, err)
		}
		records[version-expected-1].Position = position
		stored = append(stored, position)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("append %s@%d: %w", stream, expected, err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("append %s@%d: %w", stream, expected, err)
	}
	if len(stored) == len(records) {
		return nil
	}
	if len(stored) > 0 {
		if _, err := t.tx.ExecContext(ctx, pgUndoInsert, stored); err != nil {
			return fmt.Errorf("append %s@%d: undo a partial append: %w", stream, expected, err)
		}
	}
	actual, err := streamVersion(ctx, t.tx, stream)
	if err != nil {
		actual = -1
	}
	return &ConflictError{Stream: stream, Expected: expected, Actual: actual}
}

func streamVersion(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, stream string) (int64, error) {
	var v int64
	err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = $1`, stream).Scan(&v)
	return v, err
}

// Commit announces the newest position appended on commitChannel, inside
// the transaction (PostgreSQL delivers it only if the commit happens),
// then commits and wakes this process's followers at once.
func (t *postgresTx) Commit() error {
	defer t.release()
	ctx := context.Background()
	if t.last > 0 {
		if _, err := t.tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, commitChannel, strconv.FormatInt(t.last, 10)); err != nil {
			return errors.Join(fmt.Errorf("postgres: announce commit: %w", err), t.tx.Rollback())
		}
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	if c := t.p.shared.Load(); c != nil && t.deleted {
		// This replica's deletions leave its window of recent records
		// (another replica's are not seen here; they are old heartbeats
		// a follower has long passed).
		c.forget()
	}
	if t.last > 0 {
		t.p.commits.announce(t.last)
	}
	return nil
}

// Rollback drops the appends; after Commit it does nothing.
func (t *postgresTx) Rollback() error {
	defer t.release()
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("postgres: rollback: %w", err)
	}
	return nil
}

// release hands the transaction's connection back to the pool, once it
// has ended; a second call does nothing.
func (t *postgresTx) release() { _ = t.conn.Close() }

// insertColumns are the rows to insert, column by column, for unnest.
type insertColumns struct {
	ids, streams, types []string
	versions, recorded  []int64
	schemas             []int32
	payloads, metadata  [][]byte
	// actor and causation are the append's, which all its rows share.
	actor, causation string
	// actors and causations are each row's, for AppendPrepared's rows
	// of many appends.
	actors, causations []string
}

// newRecords gives each event its id and version and lays the rows out
// for one INSERT.
func newRecords(stream string, expected int64, md Metadata, at time.Time, evs []NewEvent) ([]Record, insertColumns, error) {
	at = at.UTC()
	// The first event's metadata, and the rest's, which continue its write.
	var meta [2][]byte
	for i := range meta {
		b, err := metadataJSON(md, i > 0)
		if err != nil {
			return nil, insertColumns{}, fmt.Errorf("append %s: metadata: %w", stream, err)
		}
		meta[i] = b
	}
	records := make([]Record, len(evs))
	n := len(evs)
	c := insertColumns{ids: make([]string, n), streams: make([]string, n), types: make([]string, n), versions: make([]int64, n),
		recorded: make([]int64, n), schemas: make([]int32, n), payloads: make([][]byte, n), metadata: make([][]byte, n),
		actor: md.Actor, causation: md.CausationID}
	for i, ev := range evs {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, insertColumns{}, fmt.Errorf("append %s: event id: %w", stream, err)
		}
		records[i] = Record{ID: id.String(), Stream: stream, Version: expected + int64(i) + 1, Type: ev.Type,
			SchemaVersion: max(ev.SchemaVersion, 1), RecordedAt: at, Payload: json.RawMessage(ev.Payload), Metadata: md, Continues: i > 0}
		c.ids[i], c.streams[i], c.types[i], c.versions[i] = records[i].ID, stream, ev.Type, records[i].Version
		c.recorded[i], c.schemas[i], c.payloads[i], c.metadata[i] = at.UnixNano(), int32(records[i].SchemaVersion), ev.Payload, meta[min(i, 1)]
	}
	return records, c, nil
}

// maxPosition is the newest position of records: positions grow with
// versions, but need not be consecutive.
func maxPosition(records []Record) int64 {
	var m int64
	for _, r := range records {
		m = max(m, r.Position)
	}
	return m
}

// isDeadlock reports whether err is PostgreSQL's deadlock_detected.
func isDeadlock(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40P01"
}

var _ PreparedAppender = (*postgresTx)(nil)

// pgInsertPrepared inserts the rows of many appends with one statement,
// the appends' rows one after the other, each append's in version order
// (positions grow with versions and with the appends' order, as in
// pgInsertEvents: ORDER BY the arrays' ordinality). A row goes in
// only if its stream stands, in the statement's snapshot, at the version
// the call's first append of that stream expects (base, $11), and if
// every stream its append read (ReadAt, $13–$15, by the append's index
// $12) stands at the version it was read at: a refused row takes no
// position. Another transaction that stores one of the versions first
// makes the row wait on UNIQUE (stream, version) and then skip it (ON
// CONFLICT DO NOTHING), as in pgInsertEvents; AppendPrepared finds
// which appends are incomplete from what comes back.
const pgInsertPrepared = `INSERT INTO events (position, event_id, stream, version, type, schema_version, recorded_at, payload, metadata, actor, causation_id, txid)
SELECT nextval('events_position'), e.event_id, e.stream, e.version, e.type, e.schema_version, e.recorded_at, e.payload, e.metadata, e.actor, e.causation_id, pg_current_xact_id()
FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::integer[], $6::bigint[], $7::bytea[], $8::bytea[], $9::text[], $10::text[], $11::bigint[], $12::integer[]) WITH ORDINALITY
  AS e(event_id, stream, version, type, schema_version, recorded_at, payload, metadata, actor, causation_id, base, n, ord)
WHERE (SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = e.stream) = e.base
  AND NOT EXISTS (SELECT FROM unnest($13::integer[], $14::text[], $15::bigint[]) AS r(n, stream, version)
    WHERE r.n = e.n AND (SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = r.stream) <> r.version)
ORDER BY e.ord
ON CONFLICT (stream, version) DO NOTHING
RETURNING stream, version, position`

// pgStreamHeads reads the highest version of each of the streams $1, in
// order (0 for a stream with no events).
const pgStreamHeads = `SELECT COALESCE((SELECT MAX(version) FROM events WHERE stream = s), 0) FROM unnest($1::text[]) AS s`

// AppendPrepared implements PreparedAppender: the appends of ps go in
// with one statement (pgInsertPrepared), and the stream checks and the
// checks of the streams each read (ReadAt) are that statement's
// conditions, not statements of their own. Appends of one stream in ps
// must follow each other (each expects the version the one before
// leaves), and a read of a stream an earlier append in ps moves must
// name the version it leaves; such an append is refused at once
// otherwise, and it depends on those earlier appends being stored. An
// append whose rows did not all go in (its stream or a read one stood
// elsewhere, or another transaction stored one of its versions first)
// is refused with a *ConflictError, and so is every later append of its
// stream and every append that read the stream after it; the rows of
// refused appends that did go in are deleted (one statement more, only
// then), and one more reads the versions the conflicts name.
func (t *postgresTx) AppendPrepared(ctx context.Context, ps []*PreparedAppend) ([][]Record, []error, error) {
	recs := make([][]Record, len(ps))
	errs := make([]error, len(ps))
	// moved: where the appends before, in ps, leave each stream; base:
	// where the first of them expects it.
	moved := make(map[string]int64, len(ps))
	base := make(map[string]int64, len(ps))
	// deps[i]: the streams appends before ps[i] move that ps[i] read.
	deps := make([][]string, len(ps))
	var cols insertColumns
	var bases []int64
	var ns []int32
	var readN []int32
	var readStreams []string
	var readVersions []int64
	in := make([]int, 0, len(ps))
	for i, p := range ps {
		stream := p.Stream()
		if v, ok := moved[stream]; ok && v != p.Expected() {
			errs[i] = &ConflictError{Stream: stream, Expected: p.Expected(), Actual: v}
			continue
		}
		for _, r := range p.reads {
			if v, ok := moved[r.Stream]; ok && v != r.Version {
				errs[i] = &ConflictError{Stream: r.Stream, Expected: r.Version, Actual: v}
				break
			}
		}
		if errs[i] != nil {
			continue
		}
		for _, r := range p.reads {
			if _, ok := moved[r.Stream]; ok {
				deps[i] = append(deps[i], r.Stream)
				continue
			}
			readN, readStreams, readVersions = append(readN, int32(i)), append(readStreams, r.Stream), append(readVersions, r.Version)
		}
		if _, ok := moved[stream]; !ok {
			base[stream] = p.Expected()
		}
		moved[stream] = p.Expected() + int64(len(p.records))
		for j := range p.records {
			r := &p.records[j]
			var md []byte
			if s, ok := p.args[j*insertArgs+7].(string); ok {
				md = []byte(s)
			}
			cols.ids = append(cols.ids, r.ID)
			cols.streams = append(cols.streams, stream)
			cols.versions = append(cols.versions, r.Version)
			cols.types = append(cols.types, r.Type)
			cols.schemas = append(cols.schemas, int32(r.SchemaVersion))
			cols.recorded = append(cols.recorded, r.RecordedAt.UnixNano())
			cols.payloads = append(cols.payloads, []byte(r.Payload))
			cols.metadata = append(cols.metadata, md)
			cols.actors = append(cols.actors, r.Metadata.Actor)
			cols.causations = append(cols.causations, r.Metadata.CausationID)
			bases = append(bases, base[stream])
			ns = append(ns, int32(i))
		}
		in = append(in, i)
	}
	if len(in) == 0 {
		return recs, errs, nil
	}
	if !t.hasXid {
		if _, err := t.tx.ExecContext(ctx, pgTakeXid); err != nil {
			return nil, nil, fmt.Errorf("append %d streams: %w", len(in), err)
		}
		t.hasXid = true
	}
	type streamVersion struct {
		stream  string
		version int64
	}
	positions := make(map[streamVersion]int64, len(cols.ids))
	rows, err := t.tx.QueryContext(ctx, pgInsertPrepared, cols.ids, cols.streams, cols.versions, cols.types, cols.schemas,
		cols.recorded, cols.payloads, cols.metadata, cols.actors, cols.causations, bases, ns, readN, readStreams, readVersions)
	if err != nil {
		// A deadlock with another replica's appends included: the
		// statement failed, and with it the transaction.
		return nil, nil, fmt.Errorf("append %d streams: %w", len(in), err)
	}
	for rows.Next() {
		var sv streamVersion
		var position int64
		if err := rows.Scan(&sv.stream, &sv.version, &position); err != nil {
			_ = rows.Close()
			return nil, nil, fmt.Errorf("append %d streams: %w", len(in), err)
		}
		positions[sv] = position
	}
	if err := rows.Close(); err != nil {
		return nil, nil, fmt.Errorf("append %d streams: %w", len(in), err)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("append %d streams: %w", len(in), err)
	}
	// The appends in order: one is stored if all its rows went in and
	// nothing it follows or read was refused.
	failed := map[string]bool{}
	var undo []int64
	var refused []int
	var last int64
	for _, i := range in {
		p := ps[i]
		stream := p.Stream()
		ok := !failed[stream]
		for _, d := range deps[i] {
			ok = ok && !failed[d]
		}
		out := append([]Record(nil), p.records...)
		for j := range out {
			pos, stored := positions[streamVersion{stream, out[j].Version}]
			if stored {
				undo = append(undo, pos)
			}
			ok = ok && stored
			out[j].Position = pos
		}
		if !ok {
			failed[stream] = true
			refused = append(refused, i)
			continue
		}
		undo = undo[:len(undo)-len(out)]
		recs[i] = out
		last = max(last, out[len(out)-1].Position)
	}
	if len(undo) > 0 {
		if _, err := t.tx.ExecContext(ctx, pgUndoInsert, undo); err != nil {
			return nil, nil, fmt.Errorf("append %d streams: undo refused appends: %w", len(in), err)
		}
	}
	if len(refused) > 0 {
		if err := t.refusePrepared(ctx, ps, refused, deps, failed, errs); err != nil {
			return nil, nil, err
		}
	}
	if last > 0 {
		t.appended(last)
	}
	return recs, errs, nil
}

// refusePrepared sets the *ConflictError of each refused append of ps:
// the first stream it read, or depended on, that stands elsewhere than
// it read it, else its own stream, each at the version read now.
func (t *postgresTx) refusePrepared(ctx context.Context, ps []*PreparedAppend, refused []int, deps [][]string, failed map[string]bool, errs []error) error {
	var names []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			names = append(names, s)
		}
	}
	for _, i := range refused {
		add(ps[i].Stream())
		for _, r := range ps[i].reads {
			add(r.Stream)
		}
	}
	rows, err := t.tx.QueryContext(ctx, pgStreamHeads, names)
	if err != nil {
		return fmt.Errorf("read the versions of refused appends' streams: %w", err)
	}
	heads := make(map[string]int64, len(names))
	k := 0
	for ; rows.Next(); k++ {
		var v int64
		if k >= len(names) {
			_ = rows.Close()
			return fmt.Errorf("read the versions of refused appends' streams: more rows than the %d streams", len(names))
		}
		if err := rows.Scan(&v); err != nil {
			_ = rows.Close()
			return fmt.Errorf("read the versions of refused appends' streams: %w", err)
		}
		heads[names[k]] = v
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("read the versions of refused appends' streams: %w", err)
	}
	if k != len(names) {
		return fmt.Errorf("read the versions of refused appends' streams: %d rows for %d streams", k, len(names))
	}
	for _, i := range refused {
		p := ps[i]
		errs[i] = &ConflictError{Stream: p.Stream(), Expected: p.Expected(), Actual: heads[p.Stream()]}
		for _, r := range p.reads {
			if slices.Contains(deps[i], r.Stream) {
				if failed[r.Stream] {
					errs[i] = &ConflictError{Stream: r.Stream, Expected: r.Version, Actual: heads[r.Stream]}
					break
				}
				continue
			}
			if heads[r.Stream] != r.Version {
				errs[i] = &ConflictError{Stream: r.Stream, Expected: r.Version, Actual: heads[r.Stream]}
				break
			}
		}
	}
	return nil
}
