package viewstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"herd/events"
)

// A rebuild's statements and the handles it writes its rows through: it
// empties the views' tables, writes each aggregate's row once (encoded
// on every core into Recorded, replayed in order through Batches over
// Prepared, in its one transaction), drops and creates again the
// tables' secondary indexes around the rows, and leaves its checkpoint.

// Empty deletes every row of the view table named table.
func Empty(ctx context.Context, x Execer, table string) error {
	if _, err := x.ExecContext(ctx, "DELETE FROM "+table); err != nil {
		return fmt.Errorf("empty %s: %w", table, err)
	}
	return nil
}

// DropSnapshots deletes every snapshot of the log, for a rebuild that
// takes them afresh.
func DropSnapshots(ctx context.Context, x Execer) error {
	if _, err := x.ExecContext(ctx, "DELETE FROM snapshots"); err != nil {
		return fmt.Errorf("drop the snapshots: %w", err)
	}
	return nil
}

// insertSnapshotSQL saves one snapshot (events.Snapshots): the same
// stream and position again keeps the first. One tuple of parameters, so
// that Batches gathers a run of them.
const insertSnapshotSQL = `INSERT INTO snapshots (stream, position, version, taken_at, state) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (stream, position) DO NOTHING`

// InsertSnapshot saves the snapshot of stream at position (the stream's
// version there, taken at takenAt in Unix nanoseconds, its state in
// JSON), as a rebuild takes it; a snapshot already there is kept.
func InsertSnapshot(ctx context.Context, x Execer, stream string, position, version, takenAt int64, state []byte) error {
	_, err := x.ExecContext(ctx, insertSnapshotSQL, stream, position, version, takenAt, state)
	return err
}

// Checkpoint records that the views reflect the log up to head, rebuilt
// at rebuiltAt (RFC 3339).
func Checkpoint(ctx context.Context, x Execer, head int64, rebuiltAt string) error {
	if _, err := x.ExecContext(ctx, `INSERT INTO projection_checkpoints (projection, position, rebuilt_at) VALUES ('views', ?, ?)
ON CONFLICT (projection) DO UPDATE SET position = excluded.position, rebuilt_at = excluded.rebuilt_at`,
		head, rebuiltAt); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// Index is a secondary index of a view table, with the statement its
// migration created it with.
type Index struct{ Name, SQL string }

// DropIndexes drops the secondary indexes of tables inside tx and returns
// them, for CreateIndexes to create again. Indexes behind a primary key
// or a UNIQUE constraint (without SQL of their own) stay. Readers on
// other connections see the old schema until the commit.
func DropIndexes(ctx context.Context, tx *events.ViewTx, tables []string) ([]Index, error) {
	var out []Index
	for _, t := range tables {
		rows, err := tx.QueryContext(ctx, tx.Dialect().TableIndexes(), t)
		if err != nil {
			return nil, fmt.Errorf("indexes of %s: %w", t, err)
		}
		for rows.Next() {
			var ix Index
			if err := rows.Scan(&ix.Name, &ix.SQL); err != nil {
				rows.Close()
				return nil, fmt.Errorf("indexes of %s: %w", t, err)
			}
			out = append(out, ix)
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("indexes of %s: %w", t, err)
		}
	}
	for _, ix := range out {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+ix.Name+`"`); err != nil {
			return nil, fmt.Errorf("drop index %s: %w", ix.Name, err)
		}
	}
	return out, nil
}

// CreateIndexes creates the indexes DropIndexes dropped, with the
// statements they were created with.
func CreateIndexes(ctx context.Context, tx *events.ViewTx, indexes []Index) error {
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix.SQL); err != nil {
			return fmt.Errorf("create index %s: %w", ix.Name, err)
		}
	}
	return nil
}

// Recorded is an execer that runs nothing: it keeps the statements a
// row writer would run, so that a rebuild can encode rows on every core
// and still write them through its one transaction, in order (Replay). A
// writer that reads the result of its statement gets an error
// (driver.ResultNoRows): a rebuild has none to give before the statement
// runs.
type Recorded struct {
	// d is the dialect of the execer the statements are replayed on.
	d     events.Dialect
	execs []recordedExec
}

// recordedExec is one statement and its arguments.
type recordedExec struct {
	query string
	args  []any
}

// NewRecorded is an empty record of statements to replay on an execer
// of dialect d.
func NewRecorded(d events.Dialect) *Recorded { return &Recorded{d: d} }

// ExecContext records query with a copy of args.
func (r *Recorded) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	r.execs = append(r.execs, recordedExec{query: query, args: append([]any(nil), args...)})
	return driver.ResultNoRows, nil
}

// Dialect is the dialect of the execer the statements are replayed on.
func (r *Recorded) Dialect() events.Dialect { return r.d }

// Replay runs the recorded statements through x, in the order they were
// recorded.
func (r *Recorded) Replay(ctx context.Context, x Execer) error {
	for _, e := range r.execs {
		if _, err := x.ExecContext(ctx, e.query, e.args...); err != nil {
			return err
		}
	}
	return nil
}

// Prepared executes through one prepared statement per query text, so a
// rebuild that writes the same few statements a million times parses each
// once.
type Prepared struct {
	tx    *events.ViewTx
	stmts map[string]*sql.Stmt
}

// NewPrepared is tx executing through prepared statements.
func NewPrepared(tx *events.ViewTx) *Prepared {
	return &Prepared{tx: tx, stmts: map[string]*sql.Stmt{}}
}

// ExecContext executes query through its prepared statement, preparing it
// on first use.
func (p *Prepared) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	stmt := p.stmts[query]
	if stmt == nil {
		var err error
		if stmt, err = p.tx.PrepareContext(ctx, query); err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		p.stmts[query] = stmt
	}
	return stmt.ExecContext(ctx, p.tx.Dialect().Args(args)...)
}

// Dialect is the dialect of the transaction the statements run in.
func (p *Prepared) Dialect() events.Dialect { return p.tx.Dialect() }

// Close closes every prepared statement; the next ExecContext prepares
// its statement again.
func (p *Prepared) Close() {
	for _, stmt := range p.stmts {
		_ = stmt.Close()
	}
	clear(p.stmts)
}
