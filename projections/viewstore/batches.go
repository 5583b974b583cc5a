package viewstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"herd/events"
)

// maxBatchArgs caps the parameters of one gathered statement: SQLite's
// historical limit on host parameters (999; today's builds allow 32,766),
// and far past the point where a larger statement saves anything.
const maxBatchArgs = 999

// Batches is the execer a rebuild writes its rows through. It
// gathers a run of the same "INSERT ... VALUES (?, ..., ?) ..." statement
// into one statement of many rows, "VALUES (...), (...), ...", which SQLite
// runs as the same inserts in the same order (an ON CONFLICT clause
// applies to each row as it comes) for one call into the driver instead
// of one per row: a row of the node timeline cost 4.4 µs on its own,
// mostly the driver's and database/sql's work per statement. Any other
// statement first writes what is gathered, then runs as it is, so the
// order of the writes is kept. A gathered insert reports no result
// (driver.ResultNoRows) and its error comes from a later ExecContext or
// from Flush; no view writer reads either, and a rebuild fails as a whole.
type Batches struct {
	x Execer
	// query is the statement being gathered ("" when none), args the
	// parameters of its rows so far, rows their number.
	query string
	args  []any
	rows  int
	// shapes remembers how each statement seen splits around its VALUES
	// tuple; ok false for one that cannot be gathered.
	shapes map[string]insertShape
	// multi remembers the text of each many-row statement built, by
	// statement and number of rows.
	multi map[multiKey]string
}

// insertShape is a statement split around its one VALUES tuple.
type insertShape struct {
	head, tuple, tail string
	ok                bool
}

type multiKey struct {
	query string
	rows  int
}

// NewBatches gathers the inserts written through it into statements of
// many rows on x.
func NewBatches(x Execer) *Batches {
	return &Batches{x: x, shapes: map[string]insertShape{}, multi: map[multiKey]string{}}
}

// ExecContext gathers query when it continues the run being gathered or
// can start one, and otherwise writes the run and executes query.
func (b *Batches) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if query != b.query || len(b.args)+len(args) > maxBatchArgs {
		if err := b.Flush(ctx); err != nil {
			return nil, err
		}
		if !b.shape(query).ok || len(args) == 0 {
			return b.x.ExecContext(ctx, query, args...)
		}
		b.query = query
	}
	b.args = append(b.args, args...)
	b.rows++
	return driver.ResultNoRows, nil
}

// Dialect is the dialect of the execer the rows are written through.
func (b *Batches) Dialect() events.Dialect { return b.x.Dialect() }

// Flush writes the rows gathered so far as one statement.
func (b *Batches) Flush(ctx context.Context) error {
	if b.rows == 0 {
		return nil
	}
	key := multiKey{b.query, b.rows}
	q, ok := b.multi[key]
	if !ok {
		s := b.shape(b.query)
		q = s.head + strings.Repeat(s.tuple+", ", b.rows-1) + s.tuple + s.tail
		b.multi[key] = q
	}
	_, err := b.x.ExecContext(ctx, q, b.args...)
	if err != nil {
		err = fmt.Errorf("write %d rows of %.40q...: %w", b.rows, b.query, err)
	}
	clear(b.args) // let the rows' data go
	b.query, b.args, b.rows = "", b.args[:0], 0
	return err
}

// shape splits query around "VALUES (?, ..., ?)" when it is an INSERT
// with one such tuple of parameters only.
func (b *Batches) shape(query string) insertShape {
	if s, ok := b.shapes[query]; ok {
		return s
	}
	var s insertShape
	head, rest, found := strings.Cut(query, "VALUES (")
	if found && strings.HasPrefix(strings.TrimSpace(query), "INSERT ") {
		tuple, tail, closed := strings.Cut(rest, ")")
		// A second tuple after the first (a statement of many rows
		// already) is not a shape Flush can repeat.
		if closed && strings.Trim(tuple, "?, \n") == "" && !strings.Contains(tail, "VALUES") &&
			!strings.HasPrefix(strings.TrimSpace(tail), ",") {
			s = insertShape{head: head + "VALUES ", tuple: "(" + tuple + ")", tail: tail, ok: true}
		}
	}
	b.shapes[query] = s
	return s
}
