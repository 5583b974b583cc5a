package projections

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"herd/events"
)

// rowsPerChunk is how many aggregates one encoder takes at a time when a
// rebuild writes their rows: enough that handing chunks between
// goroutines costs nothing noticeable, few enough that the encoded rows
// waiting for the writer stay a few megabytes.
const rowsPerChunk = 512

// recordedExecs is an execer that runs nothing: it keeps the statements
// an aggregate's row writer would run, so that a rebuild can encode rows
// on every core and still write them through its one transaction, in
// order. A writer that reads the result of its statement gets an error
// (driver.ResultNoRows): a rebuild has none to give before the statement
// runs.
type recordedExecs struct {
	// d is the dialect of the execer the statements are replayed on.
	d     events.Dialect
	execs []recordedExec
}

// recordedExec is one statement and its arguments.
type recordedExec struct {
	query string
	args  []any
}

// ExecContext records query with a copy of args.
func (r *recordedExecs) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	r.execs = append(r.execs, recordedExec{query: query, args: append([]any(nil), args...)})
	return driver.ResultNoRows, nil
}

// Dialect is the dialect of the execer the statements are replayed on.
func (r *recordedExecs) Dialect() events.Dialect { return r.d }

// replay runs the recorded statements through x, in the order they were
// recorded.
func (r recordedExecs) replay(ctx context.Context, x execer) error {
	for _, e := range r.execs {
		if _, err := x.ExecContext(ctx, e.query, e.args...); err != nil {
			return err
		}
	}
	return nil
}

// writeRows writes n rows through x: encode(rec, i) records the
// statements of row i, rowsPerChunk rows at a time on every core, and
// the statements run on x in row order while the next chunks are
// encoded.
func writeRows(ctx context.Context, x execer, n int, encode func(rec execer, i int) error) error {
	type chunk struct {
		stmts recordedExecs
		err   error
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	chunks := (n + rowsPerChunk - 1) / rowsPerChunk
	for c := range inOrder(ctx, chunks, func(c int) (chunk, bool) {
		out := chunk{stmts: recordedExecs{d: x.Dialect()}}
		for i := c * rowsPerChunk; i < min(n, (c+1)*rowsPerChunk); i++ {
			if out.err = encode(&out.stmts, i); out.err != nil {
				return out, false
			}
		}
		return out, true
	}) {
		if c.err != nil {
			return c.err
		}
		if err := c.stmts.replay(ctx, x); err != nil {
			return err
		}
	}
	return ctx.Err()
}
