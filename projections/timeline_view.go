package projections

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"herd/events"
)

// TimelineView reads nodes' lifecycle timelines.
type TimelineView struct {
	db *viewDB
}

// NewTimelineView returns a TimelineView reading the views beside log.
func NewTimelineView(log events.Log) *TimelineView {
	return &TimelineView{db: newViewDB(log)}
}

// Node returns up to limit entries of node's timeline after the given log
// position, oldest first. limit <= 0 means all.
func (v *TimelineView) Node(ctx context.Context, node string, after int64, limit int) ([]TimelineEntry, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT position, node, at, kind, reason, message, type FROM node_timeline
WHERE node = ? AND position > ? ORDER BY position, seq LIMIT ?`, node, after, events.LimitOf(limit))
	if err != nil {
		return nil, fmt.Errorf("timeline %s: %w", node, err)
	}
	return scanTimeline(rows, "timeline "+node)
}

// Recent returns the newest limit entries across every node, oldest first.
func (v *TimelineView) Recent(ctx context.Context, limit int) ([]TimelineEntry, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT position, node, at, kind, reason, message, type FROM
(SELECT * FROM node_timeline ORDER BY position DESC, seq DESC LIMIT ?) t ORDER BY position, seq`, limit)
	if err != nil {
		return nil, fmt.Errorf("recent timeline: %w", err)
	}
	return scanTimeline(rows, "recent timeline")
}

// scanTimeline reads timeline rows (position, node, at, kind, reason,
// message, type), closing rows.
func scanTimeline(rows *sql.Rows, what string) ([]TimelineEntry, error) {
	defer rows.Close()
	var out []TimelineEntry
	for rows.Next() {
		var (
			e  TimelineEntry
			at string
		)
		if err := rows.Scan(&e.Position, &e.Node, &at, &e.Kind, &e.Reason, &e.Message, &e.Type); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		var err error
		if e.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("%s @%d: %w", what, e.Position, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Between returns every entry of every node's timeline with a log position
// in (after, upTo], oldest first: the node events a Kubernetes Event list
// or watch shows for that stretch of the log.
func (v *TimelineView) Between(ctx context.Context, after, upTo int64) ([]TimelineEntry, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT position, node, at, kind, reason, message, type FROM node_timeline
WHERE position > ? AND position <= ? ORDER BY position, seq`, after, upTo)
	if err != nil {
		return nil, fmt.Errorf("timeline (%d, %d]: %w", after, upTo, err)
	}
	return scanTimeline(rows, "timeline")
}
