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
	"github.com/jackc/pgx/v5/pgconn"
)

// commitChannel is the channel NOTIFY announces commits on; its payload
// is the newest position the transaction appended.
const commitChannel = "herd_events"

const pgInsertEvents = `INSERT INTO events (position, event_id, stream, version, type, schema_version, recorded_at, payload, metadata)
SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::integer[], $7::bigint[], $8::bytea[], $9::bytea[])`

// pgTakePositions hands out n positions and locks the head until the
// transaction ends: appenders of every replica take their positions one
// transaction after another, so positions commit in order. Rolling back
// (the savepoint of a refused append included) gives them back.
const pgTakePositions = `UPDATE log_head SET position = position + $1 WHERE id = 1 RETURNING position`

// uniqueViolation is PostgreSQL's SQLSTATE for a unique index refusing a
// row: here, another writer stored the stream's next version first.
const uniqueViolation = "23505"

// postgresTx is one transaction on the PostgreSQL log.
type postgresTx struct {
	p          *Postgres
	tx         *sql.Tx
	savepoints // the newest position appended and kept
}

func (t *postgresTx) Savepoint(ctx context.Context) error {
	if _, err := t.tx.ExecContext(ctx, savepointSQL); err != nil {
		return err
	}
	t.mark()
	return nil
}

func (t *postgresTx) RollbackToSavepoint(ctx context.Context) error {
	if _, err := t.tx.ExecContext(ctx, rollbackToSQL); err != nil {
		return err
	}
	t.undo()
	return nil
}

func (t *postgresTx) ReleaseSavepoint(ctx context.Context) error {
	if _, err := t.tx.ExecContext(ctx, releaseSQL); err != nil {
		return err
	}
	t.forget()
	return nil
}

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
	if _, err := t.tx.ExecContext(ctx, `SAVEPOINT herd_append`); err != nil {
		return nil, fmt.Errorf("append %s@%d: %w", stream, expectedVersion, err)
	}
	if err := t.insert(ctx, stream, expectedVersion, records, cols); err != nil {
		_, rollbackErr := t.tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT herd_append`)
		return nil, errors.Join(err, rollbackErr)
	}
	if _, err := t.tx.ExecContext(ctx, `RELEASE SAVEPOINT herd_append`); err != nil {
		return nil, fmt.Errorf("append %s@%d: %w", stream, expectedVersion, err)
	}
	t.appended(records[len(records)-1].Position)
	return records, nil
}

// insert takes the positions, checks the stream's version and inserts
// the rows. The positions come first: once the head is locked, every
// append before this one has committed, so the version read is the
// stream's last.
func (t *postgresTx) insert(ctx context.Context, stream string, expected int64, records []Record, cols insertColumns) error {
	var last int64
	if err := t.tx.QueryRowContext(ctx, pgTakePositions, len(records)).Scan(&last); err != nil {
		return fmt.Errorf("append %s@%d: take positions: %w", stream, expected, err)
	}
	actual, err := streamVersion(ctx, t.tx, stream)
	if err != nil {
		return fmt.Errorf("append %s@%d: %w", stream, expected, err)
	}
	if actual != expected {
		return &ConflictError{Stream: stream, Expected: expected, Actual: actual}
	}
	cols.positions = make([]int64, len(records))
	for i := range records {
		records[i].Position = last - int64(len(records)-1-i)
		cols.positions[i] = records[i].Position
	}
	_, err = t.tx.ExecContext(ctx, pgInsertEvents, cols.positions, cols.ids, cols.streams, cols.versions, cols.types, cols.schemas, cols.recorded, cols.payloads, cols.metadata)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == uniqueViolation && pgErr.ConstraintName == "events_stream_version_key" {
		// A writer that did not take the head first (none of herd's):
		// read where the stream is now, outside the failed savepoint.
		return &ConflictError{Stream: stream, Expected: expected, Actual: t.versionAfterConflict(ctx, stream)}
	}
	if err != nil {
		return fmt.Errorf("append %s@%d: %w", stream, expected, err)
	}
	return nil
}

// versionAfterConflict is the stream's version for a ConflictError, -1
// when it cannot be read. The failed savepoint is rolled back first, by
// the caller, so this reads on a fresh connection from the pool.
func (t *postgresTx) versionAfterConflict(ctx context.Context, stream string) int64 {
	v, err := streamVersion(ctx, t.p.db, stream)
	if err != nil {
		return -1
	}
	return v
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
