package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Snapshot is an object's state folded from its stream up to a log
// position: derived data, kept beside the log so that the state at a
// later position folds from it instead of from the stream's first event.
type Snapshot struct {
	// Stream is the object's stream.
	Stream string
	// Position is the log position of the last event the state reflects.
	Position int64
	// Version is the number of the stream's events the state reflects.
	Version int64
	// TakenAt is when the snapshot was taken, by herd's clock.
	TakenAt time.Time
	// State is the state, as whoever took it encodes it.
	State []byte
}

// Snapshots keeps the log's snapshots, in the log's own database. Every
// snapshot must be what folding its stream up to its position gives: a
// deletion of events (DeleteEvents) drops, in its transaction, the
// snapshots of the streams it thins taken at or after the first event it
// deletes and before its compaction point, the ones that deletion makes
// untrue.
type Snapshots interface {
	// SaveSnapshots stores snaps. One already stored (the same stream and
	// position, taken by another replica from the same log) is kept as
	// it is; one from before the log's compaction point is not stored
	// (a deletion may have made it untrue since it was taken).
	SaveSnapshots(ctx context.Context, snaps []Snapshot) error
	// ReadFromSnapshot returns the newest snapshot of stream at or before
	// position upTo (nil when there is none) and the stream's events
	// after it up to upTo, in version order: what folds into the state at
	// upTo. Without a snapshot the events are the stream's from its
	// first. The events come without their ids and metadata: what folds
	// them needs neither.
	ReadFromSnapshot(ctx context.Context, stream string, upTo int64) (*Snapshot, []Record, error)
	// ReadSnapshots returns up to limit snapshots after (stream, position)
	// in that order, for a check that each is still true.
	ReadSnapshots(ctx context.Context, afterStream string, afterPosition int64, limit int) ([]Snapshot, error)
	// DropSnapshots deletes every snapshot and says how many there were.
	DropSnapshots(ctx context.Context) (int64, error)
}

// The snapshots' statements, in SQLite's placeholders; PostgreSQL's are
// made from them.
const (
	// A snapshot from before the log's compaction point may fold a
	// heartbeat a deletion has since taken away (one taken just before
	// the deletion, saved just after it): it is not saved. The compaction
	// record is read inside the insert, under the write lock on SQLite
	// and with a share lock on PostgreSQL, which a deletion's lock on the
	// record waits for (or makes wait).
	saveSnapshotSQL = `INSERT INTO snapshots (stream, position, version, taken_at, state)
SELECT ?, ?, ?, ?, ? WHERE ? >= (SELECT through FROM log_compaction WHERE id = 1%s)
ON CONFLICT (stream, position) DO NOTHING`
	snapshotBeforeSQL = `SELECT position, version, taken_at, state FROM snapshots
WHERE stream = ? AND position <= ? ORDER BY position DESC LIMIT 1`
	// The events after a snapshot are read by version, which the
	// (stream, version) index seeks to, a page at a time, and the reader
	// stops at the first past the position it wants: a condition on the
	// position would not stop the scan, which would read every later
	// event of the stream (a week's, for a list of a week ago). (Reading
	// the snapshot in the same statement, by a UNION, measured slower.)
	eventsAfterSnapshotSQL = `SELECT position, version, type, schema_version, recorded_at, payload FROM events
WHERE stream = ? AND version > ? ORDER BY version LIMIT ?`
	readSnapshotsSQL = `SELECT stream, position, version, taken_at, state FROM snapshots
WHERE stream > ? OR (stream = ? AND position > ?) ORDER BY stream, position LIMIT ?`
	dropSnapshotsSQL = `DELETE FROM snapshots`
)

// snapshotSQL is the snapshots' statements in one engine's placeholders.
type snapshotSQL struct {
	save, before, eventsAfter, read, drop, invalidate string
}

var (
	sqliteSnapshotSQL = snapshotSQL{
		save: fmt.Sprintf(saveSnapshotSQL, ""), before: snapshotBeforeSQL, eventsAfter: eventsAfterSnapshotSQL,
		read: readSnapshotsSQL, drop: dropSnapshotsSQL,
	}
	pgSnapshotSQL = snapshotSQL{
		save: pgDialect.Bind(fmt.Sprintf(saveSnapshotSQL, " FOR SHARE")), before: pgDialect.Bind(snapshotBeforeSQL),
		eventsAfter: pgDialect.Bind(eventsAfterSnapshotSQL),
		read:        pgDialect.Bind(readSnapshotsSQL), drop: dropSnapshotsSQL,
		invalidate: pgInvalidateSnapshotsSQL,
	}
)

// saveSnapshots stores snaps in one transaction that begin starts (and
// whose end it is told of).
func saveSnapshots(ctx context.Context, begin func(context.Context) (*sql.Tx, func(), error), stmts snapshotSQL, snaps []Snapshot) error {
	if len(snaps) == 0 {
		return nil
	}
	tx, release, err := begin(ctx)
	if err != nil {
		return fmt.Errorf("save %d snapshots: %w", len(snaps), err)
	}
	defer release()
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	stmt, err := tx.PrepareContext(ctx, stmts.save)
	if err != nil {
		return fmt.Errorf("save %d snapshots: %w", len(snaps), err)
	}
	defer func() { _ = stmt.Close() }()
	for _, s := range snaps {
		if _, err := stmt.ExecContext(ctx, s.Stream, s.Position, s.Version, nanos(s.TakenAt), s.State, s.Position); err != nil {
			return fmt.Errorf("save the snapshot of %s at %d: %w", s.Stream, s.Position, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save %d snapshots: %w", len(snaps), err)
	}
	return nil
}

// readFromSnapshot is Snapshots.ReadFromSnapshot on q.
func readFromSnapshot(ctx context.Context, q *sql.DB, stmts snapshotSQL, stream string, upTo int64) (*Snapshot, []Record, error) {
	snap := &Snapshot{Stream: stream}
	var takenAt int64
	err := q.QueryRowContext(ctx, stmts.before, stream, upTo).Scan(&snap.Position, &snap.Version, &takenAt, &snap.State)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		snap = nil
	case err != nil:
		return nil, nil, fmt.Errorf("read the snapshot of %s at %d: %w", stream, upTo, err)
	default:
		snap.TakenAt = fromNanos(takenAt)
	}
	var (
		after int64
		recs  []Record
	)
	if snap != nil {
		after = snap.Version
	}
	for page := snapshotReadPage; ; page = min(2*page, 1024) {
		rows, err := q.QueryContext(ctx, stmts.eventsAfter, stream, after, page)
		if err != nil {
			return nil, nil, fmt.Errorf("read stream %s after version %d up to %d: %w", stream, after, upTo, err)
		}
		n, past, err := scanUpTo(rows, stream, upTo, &recs)
		if err != nil {
			return nil, nil, fmt.Errorf("read stream %s after version %d up to %d: %w", stream, after, upTo, err)
		}
		if past || n < page {
			return snap, recs, nil
		}
		after = recs[len(recs)-1].Version
	}
}

// scanUpTo appends rows of eventsAfterSnapshotSQL's shape to recs up to
// the first past position upTo, and closes them: SQLite steps no row
// further. It returns how many rows it read and whether it met one past
// upTo.
func scanUpTo(rows *sql.Rows, stream string, upTo int64, recs *[]Record) (n int, past bool, err error) {
	defer func() {
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}()
	for rows.Next() {
		var (
			r          Record
			recordedAt int64
			payload    []byte
		)
		if err := rows.Scan(&r.Position, &r.Version, &r.Type, &r.SchemaVersion, &recordedAt, &payload); err != nil {
			return n, false, err
		}
		n++
		r.Stream = stream
		if r.Position > upTo {
			return n, true, nil
		}
		r.RecordedAt, r.Payload = time.Unix(0, recordedAt).UTC(), payload
		*recs = append(*recs, r)
	}
	return n, false, rows.Err()
}

// snapshotReadPage is how many events of a stream ReadFromSnapshot reads
// first, doubling on each further read: a snapshot is followed by fewer
// than the hub's SnapshotEvery (100) events, most often by a handful (an
// hour's), and every event read past the wanted position is a page of
// the log read for nothing.
const snapshotReadPage = 8

// readSnapshots is Snapshots.ReadSnapshots on q.
func readSnapshots(ctx context.Context, q Querier, stmts snapshotSQL, afterStream string, afterPosition int64, limit int) (_ []Snapshot, err error) {
	rows, err := q.QueryContext(ctx, stmts.read, afterStream, afterStream, afterPosition, limit)
	if err != nil {
		return nil, fmt.Errorf("read snapshots: %w", err)
	}
	defer func() {
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}()
	var out []Snapshot
	for rows.Next() {
		var (
			s       Snapshot
			takenAt int64
		)
		if err := rows.Scan(&s.Stream, &s.Position, &s.Version, &takenAt, &s.State); err != nil {
			return nil, fmt.Errorf("read snapshots: %w", err)
		}
		s.TakenAt = fromNanos(takenAt)
		out = append(out, s)
	}
	return out, rows.Err()
}

// dropSnapshots is Snapshots.DropSnapshots on db.
func dropSnapshots(ctx context.Context, db *sql.DB, stmts snapshotSQL) (int64, error) {
	res, err := db.ExecContext(ctx, stmts.drop)
	if err != nil {
		return 0, fmt.Errorf("drop snapshots: %w", err)
	}
	return res.RowsAffected()
}

// invalidateSnapshotsSQL deletes, for each stream that holds one of the
// events about to be deleted (the IN list), its snapshots taken at or
// after the first of them and before the deletion's compaction point
// (the last argument): every snapshot the deletion makes untrue, since a
// later event of the stream at or before the compaction point sets all
// that a deleted one set. Run before the events go.
func invalidateSnapshotsSQL(positions int) string {
	return `DELETE FROM snapshots WHERE (stream, position) IN (
  SELECT s.stream, s.position FROM snapshots s
  JOIN (SELECT stream, MIN(position) AS first FROM events WHERE position IN (?` + strings.Repeat(",?", positions-1) + `) GROUP BY stream) g
  ON s.stream = g.stream AND s.position >= g.first AND s.position < ?)`
}

// pgInvalidateSnapshotsSQL is invalidateSnapshotsSQL for PostgreSQL: the
// positions as one array ($1), the compaction point $2.
const pgInvalidateSnapshotsSQL = `DELETE FROM snapshots WHERE (stream, position) IN (
  SELECT s.stream, s.position FROM snapshots s
  JOIN (SELECT stream, MIN(position) AS first FROM events WHERE position = ANY($1) GROUP BY stream) g
  ON s.stream = g.stream AND s.position >= g.first AND s.position < $2)`

// SaveSnapshots stores snaps; see Snapshots.
func (s *Store) SaveSnapshots(ctx context.Context, snaps []Snapshot) error {
	return saveSnapshots(ctx, s.beginWrite, sqliteSnapshotSQL, snaps)
}

// ReadFromSnapshot reads what folds into stream's state at upTo; see
// Snapshots.
func (s *Store) ReadFromSnapshot(ctx context.Context, stream string, upTo int64) (*Snapshot, []Record, error) {
	return readFromSnapshot(ctx, s.db, sqliteSnapshotSQL, stream, upTo)
}

// ReadSnapshots pages through the snapshots; see Snapshots.
func (s *Store) ReadSnapshots(ctx context.Context, afterStream string, afterPosition int64, limit int) ([]Snapshot, error) {
	return readSnapshots(ctx, s.db, sqliteSnapshotSQL, afterStream, afterPosition, limit)
}

// DropSnapshots deletes every snapshot; see Snapshots.
func (s *Store) DropSnapshots(ctx context.Context) (int64, error) {
	return dropSnapshots(ctx, s.db, sqliteSnapshotSQL)
}

func (l sqliteLog) SaveSnapshots(ctx context.Context, snaps []Snapshot) error {
	return l.s.SaveSnapshots(ctx, snaps)
}

func (l sqliteLog) ReadFromSnapshot(ctx context.Context, stream string, upTo int64) (*Snapshot, []Record, error) {
	return l.s.ReadFromSnapshot(ctx, stream, upTo)
}

func (l sqliteLog) ReadSnapshots(ctx context.Context, afterStream string, afterPosition int64, limit int) ([]Snapshot, error) {
	return l.s.ReadSnapshots(ctx, afterStream, afterPosition, limit)
}

func (l sqliteLog) DropSnapshots(ctx context.Context) (int64, error) { return l.s.DropSnapshots(ctx) }

// SaveSnapshots stores snaps; see Snapshots.
func (p *Postgres) SaveSnapshots(ctx context.Context, snaps []Snapshot) error {
	return saveSnapshots(ctx, func(ctx context.Context) (*sql.Tx, func(), error) {
		tx, err := p.db.BeginTx(ctx, nil)
		return tx, func() {}, err
	}, pgSnapshotSQL, snaps)
}

// ReadFromSnapshot reads what folds into stream's state at upTo; see
// Snapshots.
func (p *Postgres) ReadFromSnapshot(ctx context.Context, stream string, upTo int64) (*Snapshot, []Record, error) {
	return readFromSnapshot(ctx, p.db, pgSnapshotSQL, stream, upTo)
}

// ReadSnapshots pages through the snapshots; see Snapshots.
func (p *Postgres) ReadSnapshots(ctx context.Context, afterStream string, afterPosition int64, limit int) ([]Snapshot, error) {
	return readSnapshots(ctx, p.db, pgSnapshotSQL, afterStream, afterPosition, limit)
}

// DropSnapshots deletes every snapshot; see Snapshots.
func (p *Postgres) DropSnapshots(ctx context.Context) (int64, error) {
	return dropSnapshots(ctx, p.db, pgSnapshotSQL)
}
