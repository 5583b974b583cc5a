package viewstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"herd/events"
)

// TimelineRow is a row of the node timeline: one moment of a node's life
// as an operator reads it, in its place in the log — the position of the
// event behind it, and its seq among the entries one event stands for (a
// missed heartbeat and what it changed).
type TimelineRow struct {
	Position int64
	Seq      int
	Node     string
	// At is when it happened, by herd's clock; it reads back in UTC, to
	// the nanosecond.
	At                          time.Time
	Kind, Type, Reason, Message string
}

// Timeline is the node timeline's table, on one engine or on whichever a
// handle is of (NewTimeline). Its rows are added as their events are
// folded, never changed, and read in log order (position, then seq); a
// rebuild empties the table and adds them again.
type Timeline interface {
	// Add writes r; a row at r's position and seq is an error.
	Add(ctx context.Context, x Execer, r TimelineRow) error
	// AddAll writes rs, the same rows Add would: on PostgreSQL in one
	// statement (one event's entries: a mark and what it changed), on
	// SQLite a statement a row; a row at the position and seq of another,
	// stored or in rs, is an error.
	AddAll(ctx context.Context, x Execer, rs []TimelineRow) error
	// Node is up to limit rows of node after the log position after,
	// oldest first; limit 0 or less means all of them.
	Node(ctx context.Context, q Querier, node string, after int64, limit int) ([]TimelineRow, error)
	// Recent is the newest limit rows of every node, oldest first; limit
	// 0 or less means all of them.
	Recent(ctx context.Context, q Querier, limit int) ([]TimelineRow, error)
	// Between is every node's rows with a log position in (after, upTo],
	// oldest first.
	Between(ctx context.Context, q Querier, after, upTo int64) ([]TimelineRow, error)
}

// timelineColumns are what a timeline read selects, in scanTimeline's
// order.
const timelineColumns = "position, seq, node, at, kind, reason, message, type"

// The timeline's statements, with "?" markers. The insert is the one a
// rebuild gathers into many-row inserts: its text is the same on every
// call.
const (
	timelineAddSQL    = "INSERT INTO node_timeline (" + timelineColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
	timelineNodeSQL   = "SELECT " + timelineColumns + " FROM node_timeline WHERE node = ? AND position > ? ORDER BY position, seq LIMIT ?"
	timelineRecentSQL = "SELECT " + timelineColumns + " FROM (SELECT " + timelineColumns +
		" FROM node_timeline ORDER BY position DESC, seq DESC LIMIT ?) t ORDER BY position, seq"
	timelineBetweenSQL = "SELECT " + timelineColumns + " FROM node_timeline WHERE position > ? AND position <= ? ORDER BY position, seq"
)

// timelineStore is the node timeline in one engine, shaped by its
// dialect as objectStore is.
type timelineStore struct {
	d                     events.Dialect
	node, recent, between string
	// many is whether AddAll writes its rows in one statement:
	// PostgreSQL's, where a statement is a round trip to the server
	// (a mark's rows in one cost a quarter of the time a statement a row
	// did). SQLite's writes a statement a row: in the group commit, a
	// mark's rows in one insert of many rows cost SQLite more than the
	// same rows a statement each (BENCHMARKS.md, 2026-11-30, late).
	many bool
}

// NewSQLiteTimeline is the node timeline in SQLite.
func NewSQLiteTimeline() Timeline { return newTimelineStore(events.EngineSQLite.Dialect()) }

// NewPostgresTimeline is the node timeline in PostgreSQL.
func NewPostgresTimeline() Timeline { return newTimelineStore(events.EnginePostgres.Dialect()) }

func newTimelineStore(d events.Dialect) *timelineStore {
	return &timelineStore{
		d:       d,
		node:    d.Bind(timelineNodeSQL),
		recent:  d.Bind(timelineRecentSQL),
		between: d.Bind(timelineBetweenSQL),
		many:    d.Engine() == events.EnginePostgres,
	}
}

func (s *timelineStore) Add(ctx context.Context, x Execer, r TimelineRow) error {
	return exec(ctx, x, "node_timeline", timelineAddSQL,
		r.Position, r.Seq, r.Node, r.At.UTC().Format(time.RFC3339Nano), r.Kind, r.Reason, r.Message, r.Type)
}

// timelineRowArgs is how many parameters one row of timelineAddSQL takes.
const timelineRowArgs = 8

// maxTimelineRows is the most rows one AddAll statement writes: the
// parameters stay under maxBatchArgs, as a rebuild's gathered ones do.
const maxTimelineRows = maxBatchArgs / timelineRowArgs

func (s *timelineStore) AddAll(ctx context.Context, x Execer, rs []TimelineRow) error {
	// A rebuild's Batches gathers single-row inserts across events, which
	// saves more than gathering one event's few rows here would.
	if _, gathers := x.(*Batches); gathers || !s.many || len(rs) == 1 {
		for _, r := range rs {
			if err := s.Add(ctx, x, r); err != nil {
				return err
			}
		}
		return nil
	}
	for len(rs) > 0 {
		n := min(len(rs), maxTimelineRows)
		args := make([]any, 0, n*timelineRowArgs)
		for _, r := range rs[:n] {
			args = append(args, r.Position, r.Seq, r.Node, r.At.UTC().Format(time.RFC3339Nano), r.Kind, r.Reason, r.Message, r.Type)
		}
		if err := exec(ctx, x, "node_timeline", timelineAddManySQL(n), args...); err != nil {
			return err
		}
		rs = rs[n:]
	}
	return nil
}

// timelineAddMany holds the text of the insert of n timeline rows at
// index n, built once per row count, so that an engine's cache of
// prepared statements (events.ViewStatements; pgx's by text) prepares
// each once. Its text has "?" markers, the same for both engines.
var timelineAddMany struct {
	sync.Mutex
	text []string
}

// timelineAddManySQL is the insert of n timeline rows, 0 < n <=
// maxTimelineRows: timelineAddSQL's with n tuples of parameters.
func timelineAddManySQL(n int) string {
	if n == 1 {
		return timelineAddSQL
	}
	m := &timelineAddMany
	m.Lock()
	defer m.Unlock()
	if n < len(m.text) && m.text[n] != "" {
		return m.text[n]
	}
	if n >= len(m.text) {
		m.text = append(m.text, make([]string, n+1-len(m.text))...)
	}
	head, tuple, _ := strings.Cut(timelineAddSQL, "VALUES ")
	m.text[n] = head + "VALUES " + strings.Repeat(tuple+", ", n-1) + tuple
	return m.text[n]
}

func (s *timelineStore) Node(ctx context.Context, q Querier, node string, after int64, limit int) ([]TimelineRow, error) {
	return scanTimeline(ctx, q, s.node, s.d.Args([]any{node, after, events.LimitOf(limit)})...)
}

func (s *timelineStore) Recent(ctx context.Context, q Querier, limit int) ([]TimelineRow, error) {
	return scanTimeline(ctx, q, s.recent, s.d.Args([]any{events.LimitOf(limit)})...)
}

func (s *timelineStore) Between(ctx context.Context, q Querier, after, upTo int64) ([]TimelineRow, error) {
	return scanTimeline(ctx, q, s.between, after, upTo)
}

// scanTimeline runs query, which selects timelineColumns, and reads its
// rows.
func scanTimeline(ctx context.Context, q Querier, query string, args ...any) ([]TimelineRow, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("node_timeline: %w", err)
	}
	defer rows.Close()
	var out []TimelineRow
	for rows.Next() {
		var (
			r  TimelineRow
			at string
		)
		if err := rows.Scan(&r.Position, &r.Seq, &r.Node, &at, &r.Kind, &r.Reason, &r.Message, &r.Type); err != nil {
			return nil, fmt.Errorf("node_timeline: %w", err)
		}
		if r.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("node_timeline @%d: %w", r.Position, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("node_timeline: %w", err)
	}
	return out, nil
}

// NewTimeline is the node timeline on whichever engine each handle it is
// given is of, as New is for an object table.
func NewTimeline() Timeline {
	return timelineEngines{byEngine[Timeline]{sqlite: NewSQLiteTimeline(), postgres: NewPostgresTimeline()}}
}

// timelineEngines picks the node timeline of a handle's engine.
type timelineEngines struct{ byEngine[Timeline] }

func (e timelineEngines) Add(ctx context.Context, x Execer, r TimelineRow) error {
	return run(e.byEngine, x, func(s Timeline) error { return s.Add(ctx, x, r) })
}

func (e timelineEngines) AddAll(ctx context.Context, x Execer, rs []TimelineRow) error {
	return run(e.byEngine, x, func(s Timeline) error { return s.AddAll(ctx, x, rs) })
}

func (e timelineEngines) Node(ctx context.Context, q Querier, node string, after int64, limit int) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.Node(ctx, q, node, after, limit) })
}

func (e timelineEngines) Recent(ctx context.Context, q Querier, limit int) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.Recent(ctx, q, limit) })
}

func (e timelineEngines) Between(ctx context.Context, q Querier, after, upTo int64) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.Between(ctx, q, after, upTo) })
}
