package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// ErrLogNotEmpty is CopyLog's refusal of a target that already holds a
// log: copying into it would mix two histories.
var ErrLogNotEmpty = errors.New("the target already holds an event log")

// CopyStats says what CopyLog copied.
type CopyStats struct {
	// Events is the number of events copied.
	Events int64
	// Head is the position of the newest event copied, now the target's
	// head: its next append takes Head+1.
	Head int64
	// Took is the wall time of the copy.
	Took time.Duration
}

// copyProgressEvery is how many rows pass between two progress calls:
// about ten a second at the rates measured (BENCHMARKS.md), often
// enough for a progress line, rarely enough to cost nothing.
const copyProgressEvery = 10_000

// copyColumns are the columns CopyLog reads from SQLite and writes to
// PostgreSQL, in this order.
var copyColumns = []string{"position", "event_id", "stream", "version", "type", "schema_version", "recorded_at", "payload", "metadata", "actor", "causation_id"}

// CopyLog copies every event of the SQLite log from into the PostgreSQL
// log to, as stored: position, id, stream, version, type, schema
// version, recorded time, the payload's and metadata's bytes (read raw,
// not decoded and encoded again), and the actor and causation id the
// audit indexes are built on. Positions are kept, gaps left by
// the retention policy included, since clients hold them as
// resourceVersions, and the target's head becomes the source's, so that
// its next append continues after it.
//
// The copy is one transaction with PostgreSQL's COPY. It first locks
// the target's head row, the one every appender takes, and refuses
// with ErrLogNotEmpty, changing nothing, when the target holds an
// event or has handed out a position; a copy that fails leaves the
// target as it found it.
//
// The source's compaction record (its compaction point, how many events
// the retention policy deleted and until when) becomes the target's, in
// the same transaction: a watch or list from before the point is refused
// there as it was on SQLite, and replicas already following the database
// hear of it.
//
// The source is read in one statement, so at one moment of the log;
// the caller keeps writers off it (herd migrate holds the data
// directory's lock). Two things are not copied: the views (rebuild
// them on the target) and consumer-group positions (herd's followers
// then start from the beginning of the log, and reconcilers are
// level-based).
//
// progress, when set, is called now and then with the events copied
// and the events to copy, last with both equal.
func CopyLog(ctx context.Context, from *Store, to *Postgres, progress func(done, total int64)) (CopyStats, error) {
	start := time.Now() // wall time: how long the copy took, for the operator
	var total int64
	if err := from.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM events`).Scan(&total); err != nil {
		return CopyStats{}, fmt.Errorf("copy log: count events: %w", err)
	}
	rows, err := from.db.QueryContext(ctx, `SELECT `+recordColumns+`, actor, causation_id FROM events ORDER BY position`)
	if err != nil {
		return CopyStats{}, fmt.Errorf("copy log: read: %w", err)
	}
	defer rows.Close()
	src := &copySource{rows: rows, total: total, progress: progress}
	comp := from.Compaction()
	err = to.withConn(ctx, func(conn *pgx.Conn) error { return copyInto(ctx, conn, src, rowOf(comp)) })
	if err != nil {
		return CopyStats{}, fmt.Errorf("copy log: %w", err)
	}
	to.commits.announce(src.last)
	to.compaction.learn(comp)
	if progress != nil {
		progress(src.copied, src.copied)
	}
	return CopyStats{Events: src.copied, Head: src.last, Took: time.Since(start)}, nil
}

// copyInto copies src into conn's events table in one transaction,
// refusing a log that is not empty, moves the head to the last position
// copied and writes comp as the log's compaction record.
func copyInto(ctx context.Context, conn *pgx.Conn, src *copySource, comp compactionRow) (err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			// A cancelled ctx must still end the transaction.
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	// With the table locked against writes (reads go on), nothing is
	// appended between the check and the copy; the head is the
	// sequence's last position, rolled-back appends included.
	if _, err := tx.Exec(ctx, `LOCK TABLE events IN EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("lock the log: %w", err)
	}
	var head int64
	if err := tx.QueryRow(ctx, `SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM events_position`).Scan(&head); err != nil {
		return fmt.Errorf("read the head: %w", err)
	}
	var found bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM events)`).Scan(&found); err != nil {
		return fmt.Errorf("look for events: %w", err)
	}
	if head != 0 || found {
		return fmt.Errorf("%w (head at position %d): herd copies a log only into an empty database", ErrLogNotEmpty, head)
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"events"}, copyColumns, src)
	if err != nil {
		return err
	}
	if n != src.copied {
		return fmt.Errorf("copied %d rows, read %d", n, src.copied)
	}
	if src.last > 0 {
		if _, err := tx.Exec(ctx, `UPDATE log_horizon SET position = $1 WHERE id = 1`, src.last); err != nil {
			return fmt.Errorf("move the head: %w", err)
		}
		// Replicas already following this database learn of the log as
		// of any commit.
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, commitChannel, strconv.FormatInt(src.last, 10)); err != nil {
			return fmt.Errorf("announce the copy: %w", err)
		}
	}
	if comp != (compactionRow{}) {
		if _, err := tx.Exec(ctx, `UPDATE log_compaction SET through = $1, before = $2, deleted = $3, thinned_at = $4 WHERE id = 1`,
			comp.through, comp.before, comp.deleted, comp.at); err != nil {
			return fmt.Errorf("copy the compaction record: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, compactionChannel, comp.payload()); err != nil {
			return fmt.Errorf("announce the compaction record: %w", err)
		}
	}
	if src.last > 0 {
		// Last, just before the commit: setval is not undone by a
		// rollback, and a copy that failed before it leaves the
		// database empty to copy into again. Never back: a reader may
		// have found the head final where it stands.
		if _, err := tx.Exec(ctx, `SELECT setval('events_position', GREATEST($1, (SELECT last_value FROM events_position)))`, src.last); err != nil {
			return fmt.Errorf("move the head: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// copySource feeds COPY the SQLite rows one at a time, as pgx.CopyFromSource.
// pgx calls it from a goroutine of its own, and progress with it.
type copySource struct {
	rows     *sql.Rows
	total    int64
	progress func(done, total int64)

	values []any
	copied int64
	last   int64
	err    error
}

func (s *copySource) Next() bool {
	if s.err != nil || !s.rows.Next() {
		return false
	}
	var (
		position, version, recorded int64
		id, stream, typ             string
		actor, causation            string
		schema                      int32
		payload, metadata           []byte
	)
	if err := s.rows.Scan(&position, &id, &stream, &version, &typ, &schema, &recorded, &payload, &metadata, &actor, &causation); err != nil {
		s.err = fmt.Errorf("read after %d: %w", s.last, err)
		return false
	}
	// PostgreSQL keeps an id as a uuid and gives it back in its
	// canonical form: an id in any other spelling would come back
	// changed, so it is refused rather than altered.
	uid, err := uuid.Parse(id)
	if err != nil || uid.String() != id {
		s.err = fmt.Errorf("event %d: id %q is not a uuid in canonical form", position, id)
		return false
	}
	s.values = []any{position, [16]byte(uid), stream, version, typ, schema, recorded, payload, metadata, actor, causation}
	s.copied++
	s.last = position
	if s.progress != nil && s.copied%copyProgressEvery == 0 {
		s.progress(s.copied, max(s.total, s.copied))
	}
	return true
}

func (s *copySource) Values() ([]any, error) { return s.values, nil }

func (s *copySource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.rows.Err()
}
