package viewstore

import (
	"context"
	"fmt"
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
	}
}

func (s *timelineStore) Add(ctx context.Context, x Execer, r TimelineRow) error {
	return exec(ctx, x, "node_timeline", timelineAddSQL,
		r.Position, r.Seq, r.Node, r.At.UTC().Format(time.RFC3339Nano), r.Kind, r.Reason, r.Message, r.Type)
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

func (e timelineEngines) Node(ctx context.Context, q Querier, node string, after int64, limit int) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.Node(ctx, q, node, after, limit) })
}

func (e timelineEngines) Recent(ctx context.Context, q Querier, limit int) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.Recent(ctx, q, limit) })
}

func (e timelineEngines) Between(ctx context.Context, q Querier, after, upTo int64) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.Between(ctx, q, after, upTo) })
}
