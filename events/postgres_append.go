package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// commitChannel is the channel NOTIFY announces commits on; its payload
// is the newest position the transaction appended.
const commitChannel = "herd_events"

// pgInsertEvents inserts the rows only if the stream ($10) is at the
// expected version ($11): a stale append inserts nothing and fails
// nothing, so the transaction stays usable without a savepoint. It runs
// after pgTakePositions, in a snapshot taken once every append before it
// has committed, so the version it reads is the stream's last.
const pgInsertEvents = `INSERT INTO events (position, event_id, stream, version, type, schema_version, recorded_at, payload, metadata)
SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::integer[], $7::bigint[], $8::bytea[], $9::bytea[])
WHERE (SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = $10) = $11`

// pgGiveBackPositions returns the positions a stale append took: it
// still holds the head, so nobody has seen them.
const pgGiveBackPositions = `UPDATE log_head SET position = position - $1 WHERE id = 1`

// pgTakePositions hands out n positions and locks the head until the
// transaction ends: appenders of every replica take their positions one
// transaction after another, so positions commit in order. Rolling back
// (the savepoint of a refused append included) gives them back.
const pgTakePositions = `UPDATE log_head SET position = position + $1 WHERE id = 1 RETURNING position`

// postgresTx is one transaction on the PostgreSQL log.
type postgresTx struct {
	p *Postgres
	txSavepoints
}

func (t *postgresTx) Engine() Engine { return EnginePostgres }

func (t *postgresTx) reader() pgReader { return pgReader{q: t.tx} }

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
	t.appended(records[len(records)-1].Position)
	return records, nil
}

// insert takes the positions and inserts the rows if the stream is at
// the expected version; if it is not, it gives the positions back and
// returns a *ConflictError. Two round trips in all.
func (t *postgresTx) insert(ctx context.Context, stream string, expected int64, records []Record, cols insertColumns) error {
	var last int64
	if err := t.tx.QueryRowContext(ctx, pgTakePositions, len(records)).Scan(&last); err != nil {
		return fmt.Errorf("append %s@%d: take positions: %w", stream, expected, err)
	}
	cols.positions = make([]int64, len(records))
	for i := range records {
		records[i].Position = last - int64(len(records)-1-i)
		cols.positions[i] = records[i].Position
	}
	res, err := t.tx.ExecContext(ctx, pgInsertEvents, cols.positions, cols.ids, cols.streams, cols.versions, cols.types,
		cols.schemas, cols.recorded, cols.payloads, cols.metadata, stream, expected)
	if err != nil {
		return fmt.Errorf("append %s@%d: %w", stream, expected, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == int64(len(records)) {
		return err
	}
	if _, err := t.tx.ExecContext(ctx, pgGiveBackPositions, len(records)); err != nil {
		return fmt.Errorf("append %s@%d: give back positions: %w", stream, expected, err)
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
	ctx := context.Background()
	if t.last > 0 {
		if _, err := t.tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, commitChannel, strconv.FormatInt(t.last, 10)); err != nil {
			return errors.Join(fmt.Errorf("postgres: announce commit: %w", err), t.tx.Rollback())
		}
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	if t.last > 0 {
		t.p.commits.announce(t.last)
	}
	return nil
}

// Rollback drops the appends; after Commit it does nothing.
func (t *postgresTx) Rollback() error {
	if err := t.tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("postgres: rollback: %w", err)
	}
	return nil
}

// insertColumns are the rows to insert, column by column, for unnest.
type insertColumns struct {
	ids, streams, types           []string
	positions, versions, recorded []int64
	schemas                       []int32
	payloads, metadata            [][]byte
}

// newRecords gives each event its id and version and lays the rows out
// for one INSERT.
func newRecords(stream string, expected int64, md Metadata, at time.Time, evs []NewEvent) ([]Record, insertColumns, error) {
	at = at.UTC()
	var meta []byte
	if !md.IsZero() {
		b, err := json.Marshal(md)
		if err != nil {
			return nil, insertColumns{}, fmt.Errorf("append %s: metadata: %w", stream, err)
		}
		meta = b
	}
	records := make([]Record, len(evs))
	n := len(evs)
	c := insertColumns{ids: make([]string, n), streams: make([]string, n), types: make([]string, n), versions: make([]int64, n),
		recorded: make([]int64, n), schemas: make([]int32, n), payloads: make([][]byte, n), metadata: make([][]byte, n)}
	for i, ev := range evs {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, insertColumns{}, fmt.Errorf("append %s: event id: %w", stream, err)
		}
		records[i] = Record{ID: id.String(), Stream: stream, Version: expected + int64(i) + 1, Type: ev.Type,
			SchemaVersion: max(ev.SchemaVersion, 1), RecordedAt: at, Payload: json.RawMessage(ev.Payload), Metadata: md}
		c.ids[i], c.streams[i], c.types[i], c.versions[i] = records[i].ID, stream, ev.Type, records[i].Version
		c.recorded[i], c.schemas[i], c.payloads[i], c.metadata[i] = at.UnixNano(), int32(records[i].SchemaVersion), ev.Payload, meta
	}
	return records, c, nil
}
