package events

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"
)

// pgRecordColumns are recordColumns in PostgreSQL's terms.
const pgRecordColumns = `position, event_id::text, stream, version, type, schema_version, recorded_at, payload, metadata`

// pgReader reads the log through q: the pool, or a transaction that
// reads its own appends.
type pgReader struct {
	q Querier
	// published is the newest head kept in log_horizon for the views'
	// reads, on the pool; nil in a transaction, which must not hold
	// log_horizon's row to its commit.
	published *atomic.Int64
	// since is a head this replica found final earlier (the pool's
	// published), where final looks for transactions its head stands
	// inside; nil where none is known.
	since *atomic.Int64
	// own is the newest position the transaction appended itself, which
	// it reads although others' appends before it may still be running.
	own int64
}

// The readers' statements (migration 0007 has the functions and the
// rule).
const (
	pgSample  = `SELECT head, running FROM herd_log_sample()`
	pgRunning = `SELECT herd_log_running($1)`
	pgWhole   = `SELECT herd_log_whole($1, $2)`
	// pgPublish keeps a final head ($1) in log_horizon, without waiting
	// for the disk: a horizon lost in a crash is only an older one, and
	// one that survives was final (the commits it covers come earlier in
	// the WAL). It is the WITH of a reading statement.
	pgPublish = `WITH c AS (SELECT set_config('synchronous_commit', 'off', true) AS off),
u AS (UPDATE log_horizon SET position = $1 WHERE id = 1 AND position < $1 AND EXISTS (SELECT 1 FROM c)) `
)

// finalPause is the first wait between two looks at the appends a
// reader waits for, doubling up to finalPauseMax: a group commit lasts
// milliseconds.
const (
	finalPause    = 200 * time.Microsecond
	finalPauseMax = 5 * time.Millisecond
)

// final is the newest final position: every position at or before it
// has either committed, and every statement from now on sees it, or
// will never commit; and no transaction has events both at or before it
// and after it. It waits for the appends that held positions up to the
// sequence's value when it was called to end, holding no connection in
// between. Appends take their positions row by row and interleave, so
// the sequence's value may fall inside a transaction that was still
// inserting: final then stops where the last whole transaction before
// it ends (herd_log_whole, migration 0010), and a reader never stops
// halfway through one write.
func (r pgReader) final(ctx context.Context) (int64, error) {
	since, err := r.horizon(ctx) // before the sample
	if err != nil {
		return 0, err
	}
	var (
		head    int64
		running sql.NullString
	)
	if err := queryOne(ctx, r.q, pgSample, nil, &head, &running); err != nil {
		return 0, err
	}
	pause, waited := finalPause, running.Valid && running.String != ""
	for running.Valid && running.String != "" {
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, finalPauseMax)
		if err := queryOne(ctx, r.q, pgRunning, []any{running.String}, &running); err != nil {
			return 0, err
		}
	}
	// Without an append running at the sample, every transaction that
	// took a position at or before head had ended before it: none
	// stands on both sides.
	if waited && head > since {
		if err := queryOne(ctx, r.q, pgWhole, []any{since, head}, &head); err != nil {
			return 0, err
		}
	}
	return head, nil
}

// horizon is a head found final before now: a transaction running from
// now on took no position at or before it. It is the newest this
// replica found, or, before its first, the one kept in log_horizon.
func (r pgReader) horizon(ctx context.Context) (int64, error) {
	if r.since == nil {
		return 0, nil
	}
	if h := r.since.Load(); h > 0 {
		return h, nil
	}
	var h int64
	if err := queryOne(ctx, r.q, `SELECT position FROM log_horizon WHERE id = 1`, nil, &h); err != nil {
		return 0, err
	}
	return h, nil
}

// publish is the WITH that keeps head in log_horizon, or "" when it is
// there already or r reads in a transaction.
func (r pgReader) publish(head int64) string {
	if r.published == nil {
		return ""
	}
	for {
		p := r.published.Load()
		if head <= p {
			return ""
		}
		if r.published.CompareAndSwap(p, head) {
			return pgPublish
		}
	}
}

// Head is the newest position committed.
func (p *Postgres) Head(ctx context.Context) (int64, error) { return p.reader().Head(ctx) }

// ReadStream returns the events of stream after afterVersion.
func (p *Postgres) ReadStream(ctx context.Context, stream string, afterVersion int64) ([]Record, error) {
	return p.reader().ReadStream(ctx, stream, afterVersion)
}

// ReadAfter returns up to limit events after position.
func (p *Postgres) ReadAfter(ctx context.Context, position int64, limit int) ([]Record, error) {
	if c := p.shared.Load(); c != nil {
		return c.readAfter(ctx, position, limit, p.reader().ReadAfter, nil)
	}
	return p.reader().ReadAfter(ctx, position, limit)
}

func (p *Postgres) shareReads()          { p.shared.CompareAndSwap(nil, newRecentReads()) }
func (p *Postgres) recent() *recentReads { return p.shared.Load() }

// ReadStreamRange returns the events of stream in (after, upTo].
func (p *Postgres) ReadStreamRange(ctx context.Context, stream string, after, upTo int64) ([]Record, error) {
	return p.reader().ReadStreamRange(ctx, stream, after, upTo)
}

// Query returns the events f matches.
func (p *Postgres) Query(ctx context.Context, f Filter) ([]Record, error) {
	return p.reader().Query(ctx, f)
}

func (p *Postgres) reader() pgReader {
	return pgReader{q: p.db, published: &p.published, since: &p.published}
}

// Head is the newest event at a final position (or, in a transaction,
// the newest it appended, if later): every event at or before it that
// ever commits has committed, so a reader that goes no further never
// passes a position that commits later. It waits for the appends that
// held positions up to the sequence's value to end (milliseconds).
func (r pgReader) Head(ctx context.Context) (int64, error) {
	final, err := r.final(ctx)
	if err != nil {
		return 0, fmt.Errorf("head: %w", err)
	}
	// The newest event at or before it: rolled-back appends leave
	// positions without one.
	var head int64
	q := `SELECT COALESCE(MAX(position), 0) FROM events WHERE position <= $1`
	if pub := r.publish(final); pub != "" {
		q = pub + q
	}
	if err := queryOne(ctx, r.q, q, []any{final}, &head); err != nil {
		return 0, fmt.Errorf("head: %w", err)
	}
	return max(head, r.own), nil
}

func (r pgReader) ReadStream(ctx context.Context, stream string, afterVersion int64) ([]Record, error) {
	recs, err := r.records(ctx, `SELECT `+pgRecordColumns+` FROM events WHERE stream = $1 AND version > $2 ORDER BY version`, stream, afterVersion)
	if err != nil {
		return nil, fmt.Errorf("read stream %s after %d: %w", stream, afterVersion, err)
	}
	return recs, nil
}

// ReadAfter reads no further than Head, taken first: what it reads is
// then final, and its own snapshot, taken after, sees all of it.
func (r pgReader) ReadAfter(ctx context.Context, position int64, limit int) ([]Record, error) {
	head, err := r.final(ctx)
	if err != nil {
		return nil, fmt.Errorf("read after %d: %w", position, err)
	}
	head = max(head, r.own)
	if head <= position {
		return nil, nil
	}
	q := `SELECT ` + pgRecordColumns + ` FROM events WHERE position <= $1 AND position > $2 ORDER BY position`
	if pub := r.publish(head); pub != "" {
		q = pub + q
	}
	args := []any{head, position}
	if limit > 0 {
		q += ` LIMIT $3`
		args = append(args, limit)
	}
	recs, err := r.records(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read after %d: %w", position, err)
	}
	return recs, nil
}

func (r pgReader) ReadStreamRange(ctx context.Context, stream string, after, upTo int64) ([]Record, error) {
	recs, err := r.records(ctx, `SELECT `+pgRecordColumns+` FROM events WHERE stream = $1 AND position > $2 AND position <= $3 ORDER BY version`, stream, after, upTo)
	if err != nil {
		return nil, fmt.Errorf("read stream %s in (%d, %d]: %w", stream, after, upTo, err)
	}
	return recs, nil
}

// Query, too, reads no further than Head: the audit API pages by
// position.
func (r pgReader) Query(ctx context.Context, f Filter) ([]Record, error) {
	head, err := r.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	if f.Before <= 0 || f.Before > head+1 {
		f.Before = head + 1
	}
	q, args, err := f.sql(pgDialect)
	if err != nil {
		return nil, err
	}
	recs, err := r.records(ctx, rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	return recs, nil
}

// records runs q and reads every row as a Record.
func (r pgReader) records(ctx context.Context, q string, args ...any) ([]Record, error) {
	rows, err := r.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return scanRecords(rows)
}

// queryOne runs query and scans its one row into dest.
func queryOne(ctx context.Context, q Querier, query string, args []any, dest ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	if !rows.Next() {
		return rowsErr(rows)
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}
