package events

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// pgRecordColumns are recordColumns in PostgreSQL's terms.
const pgRecordColumns = `position, event_id::text, stream, version, type, schema_version, recorded_at, payload, metadata`

// pgDialect is PostgreSQL's: metadata is the JSON's bytes (bytea), or
// NULL, read by the functions the indexes are built on (migration
// 0006_audit_indexes.sql).
var pgDialect = dialect{
	columns:   pgRecordColumns,
	actor:     `herd_event_actor(metadata)`,
	causation: `herd_event_causation(metadata)`,
}

// pgReader reads the log through q: the pool, or a transaction that
// reads its own appends.
type pgReader struct {
	q Querier
	// headSQL finds the newest final position: herd_log_head_publish on
	// the pool, which also keeps it in log_horizon for the views' reads;
	// herd_log_head in a transaction, which must not hold log_horizon's
	// row to its commit.
	headSQL string
	// own is the newest position the transaction appended itself, which
	// it reads although others' appends before it may still be running.
	own int64
}

// The head statements (migration 0007 has the functions and the rule).
const (
	pgHeadPublish = `SELECT herd_log_head_publish()`
	pgHeadInTx    = `SELECT herd_log_head()`
)

// Head is the newest position committed.
func (p *Postgres) Head(ctx context.Context) (int64, error) { return p.reader().Head(ctx) }

// ReadStream returns the events of stream after afterVersion.
func (p *Postgres) ReadStream(ctx context.Context, stream string, afterVersion int64) ([]Record, error) {
	return p.reader().ReadStream(ctx, stream, afterVersion)
}

// ReadAfter returns up to limit events after position.
func (p *Postgres) ReadAfter(ctx context.Context, position int64, limit int) ([]Record, error) {
	if c := p.shared.Load(); c != nil {
		return c.readAfter(ctx, position, limit, p.reader().ReadAfter)
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

func (p *Postgres) reader() pgReader { return pgReader{q: p.db, headSQL: pgHeadPublish} }

// Head is the newest final position (or, in a transaction, the newest
// it appended, if later): every event at or before it that ever commits
// has committed, so a reader that goes no further never passes a
// position that commits later. It waits for the appends that hold
// positions up to the sequence's value to end (milliseconds).
func (r pgReader) Head(ctx context.Context) (int64, error) {
	var head int64
	rows, err := r.q.QueryContext(ctx, r.headSQL)
	if err != nil {
		return 0, fmt.Errorf("head: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, fmt.Errorf("head: %w", rowsErr(rows))
	}
	if err := rows.Scan(&head); err != nil {
		return 0, fmt.Errorf("head: %w", err)
	}
	return max(head, r.own), rows.Close()
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
	head, err := r.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("read after %d: %w", position, err)
	}
	if head <= position {
		return nil, nil
	}
	q := `SELECT ` + pgRecordColumns + ` FROM events WHERE position > $1 AND position <= $2 ORDER BY position`
	args := []any{position, head}
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
	recs, err := r.records(ctx, numberPlaceholders(q), args...)
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

// numberPlaceholders turns SQLite's ? into PostgreSQL's $1, $2... The
// queries it is given (Filter's) hold no ? in a literal.
func numberPlaceholders(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
