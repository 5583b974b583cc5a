package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// PreparedAppend is one stream's append made ready before its
// transaction: checked, its event ids drawn, its metadata marshalled and
// its row arguments laid out, so that what is left for the writer is the
// INSERT itself. Make it with PrepareAppend.
type PreparedAppend struct {
	records []Record
	args    []any
}

// PrepareAppend checks and encodes evs as the next events of stream after
// expectedVersion, as Append would store them, for a PreparedAppender.
func PrepareAppend(stream string, expectedVersion int64, md Metadata, at time.Time, evs ...NewEvent) (*PreparedAppend, error) {
	if len(evs) == 0 || len(evs) > maxInsertBatch {
		return nil, fmt.Errorf("append %s@%d: %d events; a prepared append holds 1 to %d", stream, expectedVersion, len(evs), maxInsertBatch)
	}
	if err := checkAppend(stream, expectedVersion, at, evs); err != nil {
		return nil, err
	}
	// The first event's metadata, and the rest's, which continue its write.
	var first, rest any
	for i, to := range []*any{&first, &rest} {
		b, err := metadataJSON(md, i > 0)
		if err != nil {
			return nil, fmt.Errorf("append %s@%d: metadata: %w", stream, expectedVersion, err)
		}
		if b != nil {
			*to = string(b)
		}
	}
	at = at.UTC()
	p := &PreparedAppend{records: make([]Record, len(evs)), args: make([]any, 0, len(evs)*insertArgs)}
	for i, ev := range evs {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("append %s: event id: %w", stream, err)
		}
		p.records[i] = Record{
			ID: id.String(), Stream: stream, Version: expectedVersion + int64(i) + 1, Type: ev.Type,
			SchemaVersion: max(ev.SchemaVersion, 1), RecordedAt: at, Payload: json.RawMessage(ev.Payload), Metadata: md,
			Continues: i > 0,
		}
		r := &p.records[i]
		mdJSON := first
		if r.Continues {
			mdJSON = rest
		}
		p.args = append(p.args, r.ID, r.Stream, r.Version, r.Type, int64(r.SchemaVersion), at.UnixNano(), []byte(r.Payload), mdJSON)
	}
	return p, nil
}

// Stream is the stream p appends to.
func (p *PreparedAppend) Stream() string { return p.records[0].Stream }

// Expected is the version p expects its stream at.
func (p *PreparedAppend) Expected() int64 { return p.records[0].Version - 1 }

// PreparedAppender is a LogTx that writes prepared appends of many
// streams with few statements. SQLite's transactions are; a PostgreSQL
// transaction appends each stream with Append.
type PreparedAppender interface {
	// AppendPrepared appends each of ps at its expected version, in
	// order, and returns each one's records, or its error: a
	// *ConflictError when its stream is elsewhere, and then it stored
	// nothing. A non-nil err means the transaction is broken.
	AppendPrepared(ctx context.Context, ps []*PreparedAppend) (recs [][]Record, errs []error, err error)
}

var _ PreparedAppender = (*sqliteTx)(nil)

// maxPreparedRows is the most rows one prepared INSERT holds; one
// statement per row count up to it is prepared once and kept.
const maxPreparedRows = 64

// insertStmts are the store's prepared INSERTs by row count.
type insertStmts struct {
	mu sync.Mutex
	m  map[int]*sql.Stmt
}

// AppendsPreparer is a log whose prepared appends run faster with
// statements it prepares on its pool beforehand: SQLite's. The unit of
// work calls it outside any transaction, before its first prepared
// append queues.
type AppendsPreparer interface {
	PrepareAppends(ctx context.Context) error
}

var _ AppendsPreparer = sqliteLog{}

// PrepareAppends prepares, on the pool, the INSERT of every row count a
// prepared append's run may have (1 to maxPreparedRows), once: a write
// transaction binds them to its own connection and never prepares one
// on the pool, which would take a second connection while it holds one
// (ARCHITECTURE.md, "Where the serial section is").
func (l sqliteLog) PrepareAppends(ctx context.Context) error {
	s := l.s
	for n := 1; n <= maxPreparedRows; n++ {
		s.inserts.mu.Lock()
		_, ok := s.inserts.m[n]
		s.inserts.mu.Unlock()
		if ok {
			continue
		}
		st, err := s.db.PrepareContext(ctx, insertQueryFor(n))
		if err != nil {
			return fmt.Errorf("prepare the insert of %d events: %w", n, err)
		}
		s.inserts.mu.Lock()
		if _, ok := s.inserts.m[n]; ok {
			_ = st.Close()
		} else {
			if s.inserts.m == nil {
				s.inserts.m = map[int]*sql.Stmt{}
			}
			s.inserts.m[n] = st
		}
		s.inserts.mu.Unlock()
	}
	return nil
}

// insertStmt is the INSERT of n rows prepared on the store's pool, nil
// when PrepareAppends has not prepared it: the caller, inside a write
// transaction, then runs it by its text on its own connection.
func (s *Store) insertStmt(n int) *sql.Stmt {
	s.inserts.mu.Lock()
	defer s.inserts.mu.Unlock()
	return s.inserts.m[n]
}

// AppendPrepared implements PreparedAppender: the appends go in runs of
// whole appends of up to maxPreparedRows rows, one prepared INSERT each,
// whose rowids are consecutive. A run refused by a constraint (a stream
// that moved) stores nothing, and its appends are tried one by one, so
// that only the conflicting ones are refused.
func (t *sqliteTx) AppendPrepared(ctx context.Context, ps []*PreparedAppend) ([][]Record, []error, error) {
	recs := make([][]Record, len(ps))
	errs := make([]error, len(ps))
	bound := map[int]*sql.Stmt{}
	for start := 0; start < len(ps); {
		end, rows := start, 0
		for end < len(ps) && (end == start || rows+len(ps[end].records) <= maxPreparedRows) {
			rows += len(ps[end].records)
			end++
		}
		err := t.insertRun(ctx, bound, ps[start:end], recs[start:end], rows)
		if err != nil && end-start > 1 {
			if constraint, _ := constraintError(err); constraint {
				for i := start; i < end; i++ {
					if err := t.insertRun(ctx, bound, ps[i:i+1], recs[i:i+1], len(ps[i].records)); err != nil {
						errs[i] = appendError(ctx, t.tx, ps[i].Stream(), ps[i].Expected(), err)
						recs[i] = nil
					}
				}
				start = end
				continue
			}
		}
		if err != nil {
			if end-start == 1 {
				if errs[start] = appendError(ctx, t.tx, ps[start].Stream(), ps[start].Expected(), err); errors.Is(errs[start], ErrConflict) {
					recs[start] = nil
					start = end
					continue
				}
			}
			return nil, nil, fmt.Errorf("append %d streams: %w", end-start, err)
		}
		start = end
	}
	return recs, errs, nil
}

// insertRun inserts the rows of ps with one statement and gives their
// records (copies of ps') their positions in out.
func (t *sqliteTx) insertRun(ctx context.Context, bound map[int]*sql.Stmt, ps []*PreparedAppend, out [][]Record, rows int) error {
	args := make([]any, 0, rows*insertArgs)
	for _, p := range ps {
		args = append(args, p.args...)
	}
	var res sql.Result
	var err error
	if rows <= maxPreparedRows {
		st, ok := bound[rows]
		if !ok {
			if prepared := t.s.insertStmt(rows); prepared != nil {
				st = t.tx.StmtContext(ctx, prepared)
				bound[rows] = st
			}
		}
		if st != nil {
			res, err = st.ExecContext(ctx, args...)
		} else {
			res, err = t.tx.ExecContext(ctx, insertQueryFor(rows), args...)
		}
	} else {
		res, err = t.tx.ExecContext(ctx, insertQueryFor(rows), args...)
	}
	if err != nil {
		return err
	}
	last, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("read position: %w", err)
	}
	pos := last - int64(rows) + 1
	for i, p := range ps {
		out[i] = append([]Record(nil), p.records...)
		for j := range out[i] {
			out[i][j].Position = pos
			pos++
		}
	}
	for i := range ps {
		t.appended(last, out[i]...)
	}
	return nil
}
