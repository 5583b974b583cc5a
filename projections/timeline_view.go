package projections

import (
	"context"
	"fmt"

	"herd/events"
	"herd/projections/viewstore"
)

// TimelineView reads nodes' lifecycle timelines.
type TimelineView struct {
	db *viewstore.DB
}

// NewTimelineView returns a TimelineView reading the views beside log.
func NewTimelineView(log events.Log) *TimelineView {
	return &TimelineView{db: viewstore.NewDB(log)}
}

// Node returns up to limit entries of node's timeline after the given log
// position, oldest first. limit <= 0 means all.
func (v *TimelineView) Node(ctx context.Context, node string, after int64, limit int) ([]TimelineEntry, error) {
	rows, err := timelineRows.Node(ctx, v.db, node, after, limit)
	if err != nil {
		return nil, fmt.Errorf("timeline %s: %w", node, err)
	}
	return entriesOf(rows), nil
}

// NodeAfterEntry returns up to limit entries of node's timeline after
// its entry at the given position and seq, oldest first: the rest of
// that event's entries, then the later events'. limit <= 0 means all. A
// page continues so from its last entry, whether its limit cut inside
// an event's entries or not.
func (v *TimelineView) NodeAfterEntry(ctx context.Context, node string, position int64, seq, limit int) ([]TimelineEntry, error) {
	rows, err := timelineRows.NodeAfterEntry(ctx, v.db, node, viewstore.TimelinePlace{Position: position, Seq: seq}, limit)
	if err != nil {
		return nil, fmt.Errorf("timeline %s: %w", node, err)
	}
	return entriesOf(rows), nil
}

// Recent returns the newest limit entries across every node, oldest
// first. limit <= 0 means all.
func (v *TimelineView) Recent(ctx context.Context, limit int) ([]TimelineEntry, error) {
	rows, err := timelineRows.Recent(ctx, v.db, limit)
	if err != nil {
		return nil, fmt.Errorf("recent timeline: %w", err)
	}
	return entriesOf(rows), nil
}

// Between returns every entry of every node's timeline with a log position
// in (after, upTo], oldest first: the node events a Kubernetes Event list
// or watch shows for that stretch of the log.
func (v *TimelineView) Between(ctx context.Context, after, upTo int64) ([]TimelineEntry, error) {
	rows, err := timelineRows.Between(ctx, v.db, after, upTo)
	if err != nil {
		return nil, fmt.Errorf("timeline (%d, %d]: %w", after, upTo, err)
	}
	return entriesOf(rows), nil
}

// entriesOf is the entries the timeline's rows keep, nil for none.
func entriesOf(rows []viewstore.TimelineRow) []TimelineEntry {
	if len(rows) == 0 {
		return nil
	}
	out := make([]TimelineEntry, len(rows))
	for i, r := range rows {
		out[i] = timelineEntry(r)
	}
	return out
}
