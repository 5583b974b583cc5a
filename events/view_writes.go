package events

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// A prepared write's view rows are made on its caller's goroutine,
// before its events have positions: the rows' statements are recorded
// (Recorder) with a placeholder where a row carries a position, and the
// group commit's leader runs them once the append took the positions
// (ViewTx.ExecRecorded), on SQLite through statements prepared on the
// pool beforehand (ViewStatements), never inside the write lock.

// PlaceholderBase is the position a prepared write's events carry until
// the leader knows theirs: event i gets PlaceholderBase+i. Nineteen
// digits, far above any position a log reaches, so that neither the
// number nor its digits occur in a row by chance.
const PlaceholderBase int64 = 8_888_888_888_888_000_000

// MaxPlaceholders bounds the events of one prepared write so that their
// placeholders stay distinct from PlaceholderBase's prefix.
const MaxPlaceholders = 1_000_000

// placeholderPrefix is the digits every placeholder begins with.
var placeholderPrefix = []byte(strconv.FormatInt(PlaceholderBase, 10)[:13])

// placeholderDigits is how many digits a placeholder has.
var placeholderDigits = len(strconv.FormatInt(PlaceholderBase, 10))

// RecordedStatement is one view statement with its arguments, bound to
// its dialect, as a recorder kept it; slots are the arguments that carry
// a log position, unknown until the leader appends.
type RecordedStatement struct {
	query string
	args  []any
	slots []positionSlot
	// stmt is query prepared on the database (SQLite's, ViewStatements),
	// nil to run it by its text (PostgreSQL's).
	stmt *sql.Stmt
}

// positionSlot is an argument that holds the position of the write's
// event number event: the argument itself (an int64), or, when at >= 0,
// the placeholder's digits at byte offset at of a []byte argument (a
// JSON row that carries its resourceVersion).
type positionSlot struct {
	arg, event, at int
}

// Recorder is an execer that keeps the statements it is given instead
// of running them: the aggregates' row writers, run on a prepared
// command's caller's goroutine, produce a ready write's rows through it.
type Recorder struct {
	d      Dialect
	events int
	stmts  []RecordedStatement
}

// NewRecorder records statements in dialect d for a write of n events,
// whose positions are PlaceholderBase to PlaceholderBase+n-1.
func NewRecorder(d Dialect, n int) *Recorder { return &Recorder{d: d, events: n} }

// Dialect is the dialect the recorded statements are bound to.
func (r *Recorder) Dialect() Dialect { return r.d }

// Statements are the statements recorded, in order.
func (r *Recorder) Statements() []RecordedStatement { return r.stmts }

// ExecContext records the statement, bound to the dialect as a ViewTx
// would run it, and finds the arguments that carry a placeholder.
func (r *Recorder) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	args = r.d.Args(args)
	s := RecordedStatement{query: r.d.Bind(query), args: args}
	for i, a := range args {
		switch v := a.(type) {
		case int64:
			if e := v - PlaceholderBase; e >= 0 && e < int64(r.events) {
				s.slots = append(s.slots, positionSlot{arg: i, event: int(e), at: -1})
			}
		case []byte:
			for off := 0; ; {
				j := bytes.Index(v[off:], placeholderPrefix)
				if j < 0 {
					break
				}
				at := off + j
				off = at + len(placeholderPrefix)
				if at+placeholderDigits > len(v) {
					break
				}
				n, err := strconv.ParseInt(string(v[at:at+placeholderDigits]), 10, 64)
				if err != nil || n-PlaceholderBase < 0 || n-PlaceholderBase >= int64(r.events) {
					continue
				}
				s.slots = append(s.slots, positionSlot{arg: i, event: int(n - PlaceholderBase), at: at})
				off = at + placeholderDigits
			}
		}
	}
	r.stmts = append(r.stmts, s)
	return recordedResult{}, nil
}

// recordedResult is the result of a recorded statement: the aggregates'
// row writers do not read it.
type recordedResult struct{}

func (recordedResult) LastInsertId() (int64, error) {
	return 0, errors.New("a recorded statement has not run")
}
func (recordedResult) RowsAffected() (int64, error) {
	return 0, errors.New("a recorded statement has not run")
}

// filled is the statement's arguments with the positions of recs in its
// slots.
func (s RecordedStatement) filled(recs []Record) []any {
	if len(s.slots) == 0 {
		return s.args
	}
	args := append([]any(nil), s.args...)
	// Slots in one []byte argument come in order of offset; splice them
	// from the last so that earlier offsets stay valid.
	for k := len(s.slots) - 1; k >= 0; k-- {
		sl := s.slots[k]
		pos := recs[sl.event].Position
		if sl.at < 0 {
			args[sl.arg] = pos
			continue
		}
		b := args[sl.arg].([]byte)
		out := make([]byte, 0, len(b))
		out = append(out, b[:sl.at]...)
		out = strconv.AppendInt(out, pos, 10)
		out = append(out, b[sl.at+placeholderDigits:]...)
		args[sl.arg] = out
	}
	return args
}

// TxStatements are the prepared statements of ViewStatements bound to
// one transaction, each once: a group commit makes one for its
// transaction and hands it to every ExecRecorded it runs there.
type TxStatements map[*sql.Stmt]*sql.Stmt

// ExecRecorded runs s in the transaction with the positions of recs, the
// records its write appended, in its placeholders: through the statement
// prepared on the database before the write queued (ViewStatements),
// bound to the transaction once (in), or, when none was, by its text,
// which pgx prepares once per connection by itself. It takes no second
// connection from the pool while the transaction holds one: the pool's
// others may be held by readers waiting for this very transaction's
// appends to be decided (the reader rule), and it would wait for them and
// they for it.
func (v *ViewTx) ExecRecorded(ctx context.Context, in TxStatements, s RecordedStatement, recs []Record) error {
	args := s.filled(recs)
	if s.stmt == nil {
		_, err := v.tx.ExecContext(ctx, s.query, args...)
		return err
	}
	st, ok := in[s.stmt]
	if !ok {
		st = v.tx.StmtContext(ctx, s.stmt)
		in[s.stmt] = st
	}
	_, err := st.ExecContext(ctx, args...)
	return err
}

// RecordedWrite is a ready write's recorded view statements and the
// records its append took, whose positions fill their placeholders.
type RecordedWrite struct {
	Rows    []RecordedStatement
	Records []Record
}

// ExecRecordedWrites runs the rows of writes in the transaction, write
// by write and each write's in order, with their positions filled in.
// On PostgreSQL they go as one pipelined batch on the transaction's own
// connection: one round trip for the lot, where a statement each would
// take one each while the group holds the appenders' lock. Elsewhere
// each runs as ExecRecorded runs it. On an error, nothing after the
// failing row has run and the transaction must not commit; failed is the
// index in writes of the write whose row failed (0 when the batch failed
// as a whole).
func (v *ViewTx) ExecRecordedWrites(ctx context.Context, in TxStatements, writes []RecordedWrite) (failed int, err error) {
	if v.conn == nil {
		for i, w := range writes {
			for _, s := range w.Rows {
				if err := v.ExecRecorded(ctx, in, s, w.Records); err != nil {
					return i, err
				}
			}
		}
		return 0, nil
	}
	var b pgx.Batch
	var owner []int // the write of each queued row
	for i, w := range writes {
		for _, s := range w.Rows {
			b.Queue(s.query, s.filled(w.Records)...)
			owner = append(owner, i)
		}
	}
	if len(owner) == 0 {
		return 0, nil
	}
	// database/sql runs Raw's function holding the connection's lock,
	// which every statement of the transaction takes too: the batch never
	// runs beside one of them, and runs inside the transaction the
	// connection is in.
	err = v.conn.Raw(func(dc any) error {
		br := dc.(*stdlib.Conn).Conn().SendBatch(ctx, &b)
		for k := range owner {
			if _, err := br.Exec(); err != nil {
				failed = owner[k]
				_ = br.Close() // the same error, or the batch's abort
				return err
			}
		}
		return br.Close()
	})
	return failed, err
}

// ViewStatements keeps a prepared write's view statements, each prepared
// on SQLite's pool once, by a command's caller before it queues: the
// leader only binds them to its transaction (ExecRecorded), and never
// takes a connection of the pool to prepare one. A nil ViewStatements
// (PostgreSQL's) prepares nothing: pgx prepares a statement run by its
// text once per connection by itself.
type ViewStatements struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// NewViewStatements is the cache of log's view statements: SQLite's
// pool's, nil on another engine.
func NewViewStatements(log Log) *ViewStatements {
	db, engine := SQLDB(log)
	if engine != EngineSQLite {
		return nil
	}
	return &ViewStatements{db: db}
}

// PrepareRecorded prepares each of stmts on the database, or finds it
// prepared already; nothing when c is nil.
func (c *ViewStatements) PrepareRecorded(ctx context.Context, stmts []RecordedStatement) error {
	if c == nil {
		return nil
	}
	for i := range stmts {
		st, err := c.prepare(ctx, stmts[i].query)
		if err != nil {
			return err
		}
		stmts[i].stmt = st
	}
	return nil
}

// prepare is query prepared on the database.
func (c *ViewStatements) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	s, ok := c.m[query]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	// Prepared without the lock: two callers may both prepare a new
	// statement, and the second closes its own.
	s, err := c.db.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", query, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if first, ok := c.m[query]; ok {
		_ = s.Close()
		return first, nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = s
	return s, nil
}

var _ Execer = (*Recorder)(nil)
