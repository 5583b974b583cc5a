package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// PreparedAppend is one stream's append made ready before its
// transaction: checked, its event ids drawn, its metadata marshalled and
// its row arguments laid out, so that what is left for the writer is the
// INSERT itself. Make it with PrepareAppend.
type PreparedAppend struct {
	records []Record
	args    []any
	// reads are the streams the append was decided on without writing
	// them, each at the version it was read at (ReadAt).
	reads []StreamVersion
}

// StreamVersion is a stream at a version: one a write was decided on
// without appending to it.
type StreamVersion struct {
	Stream  string
	Version int64
}

// ReadAt makes p depend on streams it does not append to, each at the
// version p was decided on: AppendPrepared refuses p, with a
// *ConflictError naming the stream, when one of them stands elsewhere
// (as the appends before p in the same call leave it).
func (p *PreparedAppend) ReadAt(reads ...StreamVersion) {
	p.reads = append(p.reads, reads...)
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
	// The actor and cause of every row, made arguments once.
	actor, cause := any(md.Actor), any(md.CausationID)
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
		p.args = append(p.args, r.ID, r.Stream, r.Version, r.Type, int64(r.SchemaVersion), at.UnixNano(), []byte(r.Payload), mdJSON,
			actor, cause)
	}
	return p, nil
}

// Stream is the stream p appends to.
func (p *PreparedAppend) Stream() string { return p.records[0].Stream }

// Expected is the version p expects its stream at.
func (p *PreparedAppend) Expected() int64 { return p.records[0].Version - 1 }

// PreparedAppender is a LogTx that writes prepared appends of many
// streams with few statements: SQLite's transactions and PostgreSQL's
// are.
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

// insertStmts are the store's prepared INSERTs by row count, and its
// prepared read of streams' versions (streamHeadsQuery).
type insertStmts struct {
	mu    sync.Mutex
	m     map[int]*sql.Stmt
	heads *sql.Stmt
}

// AppendsPreparer is a log whose prepared appends run faster with
// statements it prepares on its pool beforehand: SQLite's. The unit of
// work calls it outside any transaction, before its first prepared
// append queues.
type AppendsPreparer interface {
	PrepareAppends(ctx context.Context) error
}

var _ AppendsPreparer = sqliteLog{}

// PrepareAppends prepares, on the pool, the read of the streams'
// versions and the INSERT of every row count a prepared append's run may
// have (1 to maxPreparedRows), once: a write
// transaction binds them to its own connection and never prepares one
// on the pool, which would take a second connection while it holds one
// (ARCHITECTURE.md, "Where the serial section is").
func (l sqliteLog) PrepareAppends(ctx context.Context) error {
	s := l.s
	s.inserts.mu.Lock()
	heads := s.inserts.heads
	s.inserts.mu.Unlock()
	if heads == nil {
		st, err := s.db.PrepareContext(ctx, streamHeadsQuery)
		if err != nil {
			return fmt.Errorf("prepare the read of streams' versions: %w", err)
		}
		s.inserts.mu.Lock()
		if s.inserts.heads != nil {
			_ = st.Close()
		} else {
			s.inserts.heads = st
		}
		s.inserts.mu.Unlock()
	}
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

// headsStmt is streamHeadsQuery prepared on the store's pool, nil when
// PrepareAppends has not prepared it.
func (s *Store) headsStmt() *sql.Stmt {
	s.inserts.mu.Lock()
	defer s.inserts.mu.Unlock()
	return s.inserts.heads
}

// insertStmt is the INSERT of n rows prepared on the store's pool, nil
// when PrepareAppends has not prepared it: the caller, inside a write
// transaction, then runs it by its text on its own connection.
func (s *Store) insertStmt(n int) *sql.Stmt {
	s.inserts.mu.Lock()
	defer s.inserts.mu.Unlock()
	return s.inserts.m[n]
}

// AppendPrepared implements PreparedAppender. One statement first reads
// the highest version of every stream of ps (streamHeads): an append
// whose stream is not at the version it expects, as the appends before
// it in ps leave it, stores nothing and gets a *ConflictError, as the
// no-gap trigger once refused it row by row (migration
// 0007_append_checks_version.sql). The others go in runs of whole appends
// of up to maxPreparedRows rows, one prepared INSERT each, whose rowids
// are consecutive. The same statement reads the streams an append
// depends on (ReadAt): one that stands elsewhere than its append read
// it, as the appends before it leave it, refuses the append with a
// *ConflictError as well. A run refused by a constraint all the same stores
// nothing, and its appends are tried one by one, so that only the
// refused ones fail.
func (t *sqliteTx) AppendPrepared(ctx context.Context, ps []*PreparedAppend) ([][]Record, []error, error) {
	recs := make([][]Record, len(ps))
	errs := make([]error, len(ps))
	heads, err := t.streamHeads(ctx, ps)
	if err != nil {
		return nil, nil, fmt.Errorf("append %d streams: %w", len(ps), err)
	}
	// The appends that find their stream where they expect it, in order:
	// an append moves its stream for the next one of the same stream.
	in := make([]*PreparedAppend, 0, len(ps))
	at := make([]int, 0, len(ps))
	for i, p := range ps {
		if err := readsMoved(p, heads); err != nil {
			errs[i] = err
			continue
		}
		stream, head := p.Stream(), heads[p.Stream()]
		if p.Expected() != head {
			errs[i] = &ConflictError{Stream: stream, Expected: p.Expected(), Actual: head}
			continue
		}
		heads[stream] = head + int64(len(p.records))
		in = append(in, p)
		at = append(at, i)
	}
	out := make([][]Record, len(in))
	// The streams of appends an insert refused here, at the version each
	// still stands: a later append of one of them would leave a gap.
	failed := map[string]int64{}
	fail := func(i int) {
		if _, ok := failed[in[i].Stream()]; !ok {
			failed[in[i].Stream()] = in[i].Expected()
		}
		out[i] = nil
	}
	refuse := func(i int) bool {
		v, ok := failed[in[i].Stream()]
		if ok {
			errs[at[i]] = &ConflictError{Stream: in[i].Stream(), Expected: in[i].Expected(), Actual: v}
		}
		return ok
	}
	bound := map[int]*sql.Stmt{}
	for start := 0; start < len(in); {
		if refuse(start) {
			start++
			continue
		}
		end, rows := start, 0
		for end < len(in) && (end == start || rows+len(in[end].records) <= maxPreparedRows) {
			if _, ok := failed[in[end].Stream()]; ok && end > start {
				break
			}
			rows += len(in[end].records)
			end++
		}
		err := t.insertRun(ctx, bound, in[start:end], out[start:end], rows)
		if err != nil && end-start > 1 {
			if constraint, _ := constraintError(err); constraint {
				for i := start; i < end; i++ {
					if refuse(i) {
						continue
					}
					if err := t.insertRun(ctx, bound, in[i:i+1], out[i:i+1], len(in[i].records)); err != nil {
						errs[at[i]] = appendError(ctx, t.tx, in[i].Stream(), in[i].Expected(), err)
						fail(i)
					}
				}
				start = end
				continue
			}
		}
		if err != nil {
			if end-start == 1 {
				if errs[at[start]] = appendError(ctx, t.tx, in[start].Stream(), in[start].Expected(), err); errors.Is(errs[at[start]], ErrConflict) {
					fail(start)
					start = end
					continue
				}
			}
			return nil, nil, fmt.Errorf("append %d streams: %w", end-start, err)
		}
		start = end
	}
	for i, r := range out {
		recs[at[i]] = r
	}
	return recs, errs, nil
}

// readsMoved is a *ConflictError for the first stream p depends on
// (ReadAt) that does not stand at heads at the version p read, nil when
// all of them do.
func readsMoved(p *PreparedAppend, heads map[string]int64) error {
	for _, r := range p.reads {
		if head := heads[r.Stream]; head != r.Version {
			return &ConflictError{Stream: r.Stream, Expected: r.Version, Actual: head}
		}
	}
	return nil
}

// streamHeadsQuery reads the highest version of each stream of a JSON
// array of names (0 for a stream with no events), one probe of the
// (stream, version) index each: what the no-gap trigger read for every
// row, read once for every stream of a group's appends. The versions come
// back in one row, in the array's order, separated by commas: one step of
// the statement however many streams.
const streamHeadsQuery = `SELECT group_concat(COALESCE((SELECT MAX(version) FROM events WHERE stream = s.value), 0), ',' ORDER BY s.key) FROM json_each(?) AS s`

// streamHeads is the highest version of every stream ps append to or
// depend on (ReadAt), read in the transaction, which holds the write
// lock: no other writer moves them before the inserts.
func (t *sqliteTx) streamHeads(ctx context.Context, ps []*PreparedAppend) (map[string]int64, error) {
	heads := make(map[string]int64, len(ps))
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		if err := t.addHead(ctx, heads, &names, p.Stream()); err != nil {
			return nil, err
		}
		for _, r := range p.reads {
			if err := t.addHead(ctx, heads, &names, r.Stream); err != nil {
				return nil, err
			}
		}
	}
	if len(names) == 0 {
		return heads, nil
	}
	arg, err := jsonStrings(names)
	if err != nil {
		return nil, fmt.Errorf("read the streams' versions: %w", err)
	}
	var row *sql.Row
	if st := t.s.headsStmt(); st != nil {
		row = t.tx.StmtContext(ctx, st).QueryRowContext(ctx, arg)
	} else {
		row = t.tx.QueryRowContext(ctx, streamHeadsQuery, arg)
	}
	var versions string
	if err := row.Scan(&versions); err != nil {
		return nil, fmt.Errorf("read the streams' versions: %w", err)
	}
	for i, name := range names {
		v, rest, _ := strings.Cut(versions, ",")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || (i == len(names)-1) != (rest == "") {
			return nil, fmt.Errorf("read the streams' versions: %q for %d streams", versions, len(names))
		}
		heads[name], versions = n, rest
	}
	return heads, nil
}

// addHead adds stream to the streams whose versions streamHeads reads:
// to names, for the one statement, or, a name JSON cannot hold, read
// alone into heads at once. A stream already in heads is left as it is.
func (t *sqliteTx) addHead(ctx context.Context, heads map[string]int64, names *[]string, stream string) error {
	if _, ok := heads[stream]; ok {
		return nil
	}
	if !utf8.ValidString(stream) {
		// JSON holds no such name: it is read alone.
		var v int64
		if err := t.tx.QueryRowContext(ctx, streamVersionQuery, stream).Scan(&v); err != nil {
			return fmt.Errorf("read the version of %q: %w", stream, err)
		}
		heads[stream] = v
		return nil
	}
	heads[stream] = 0
	*names = append(*names, stream)
	return nil
}

// jsonStrings is ss, valid UTF-8, as a JSON array. Stream names are
// plain text, written as they are; one that JSON must escape is encoded
// by encoding/json.
func jsonStrings(ss []string) (string, error) {
	var b strings.Builder
	n := 2
	for _, s := range ss {
		n += len(s) + 3
	}
	b.Grow(n)
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		if plainJSON(s) {
			b.WriteByte('"')
			b.WriteString(s)
			b.WriteByte('"')
			continue
		}
		q, err := json.Marshal(s)
		if err != nil {
			return "", err
		}
		b.Write(q)
	}
	b.WriteByte(']')
	return b.String(), nil
}

// plainJSON reports whether s stands in a JSON string as it is: valid
// UTF-8 without quotes, backslashes or control characters.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
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
