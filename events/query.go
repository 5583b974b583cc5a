package events

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Filter selects events for audit queries. Zero fields do not filter; set
// fields must all match.
type Filter struct {
	// ID matches the one event of that id (a causation id).
	ID string
	// Stream matches one stream exactly.
	Stream string
	// StreamPrefix matches every stream starting with it, such as "node/"
	// or "pod/default/".
	StreamPrefix string
	// Types matches any of these event types.
	Types []string
	// ExceptTypes matches every event type but these: the log less its
	// frequent events (heartbeats, renewals), read in position order
	// without sending each one it passes over to herd.
	ExceptTypes []string
	// Actor matches the events whose metadata names this actor (a user,
	// a node, a reconciler), through the actor index.
	Actor string
	// CausationID matches the events whose metadata names this id as
	// their cause: what one event or request led to, through the
	// causation index.
	CausationID string
	// CausedBy matches the events this id led to, directly or through
	// others: the events naming it as their cause, the events naming
	// those, and so on (what a drain, an operator's command or a
	// condition's turn set off). It follows the causation index one
	// generation at a time in the database, so the effects of an event
	// with thousands of descendants are one query. From the events
	// naming it, each step goes forward in the log, as a cause is
	// appended before what it causes: an event naming as its cause one
	// recorded after it (a log edited by hand) is not followed there,
	// and a loop of causes ends.
	CausedBy string
	// Since matches events recorded at or after it.
	Since time.Time
	// Until matches events recorded before it (Since and Until form the
	// half-open interval [Since, Until)).
	Until time.Time
	// After matches events after this position, for paging.
	After int64
	// Before matches events before this position: with Newest, paging
	// back from the newest, or the log as it was at Before-1.
	Before int64
	// UpToVersion, with Stream, matches the stream's events up to this
	// version: the stream as it stood when its object was at that
	// version, read back from there through the (stream, version) index
	// (a position bound would read back from the stream's newest event).
	UpToVersion int64
	// Limit caps the number of events returned; 0 means no cap.
	Limit int
	// Newest, with a Limit, takes the newest Limit events that match rather
	// than the oldest (`herd log --tail`); they still come in position
	// order.
	Newest bool
}

// Query returns the events f matches, in position order.
func (s *Store) Query(ctx context.Context, q Querier, f Filter) ([]Record, error) {
	query, args, err := f.sql(sqliteDialect)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	records, err := scanRecords(rows)
	if err != nil {
		return nil, fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	return records, nil
}

// withContext is err, from a query, also saying that ctx ended when it
// did: the driver answers a query it stopped at the context's end with
// its own error ("interrupted"), and the caller tells a read past its
// deadline (a 504) from a broken database by the context's.
func withContext(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// sql is the query for f in engine d's terms, with ? for its arguments.
func (f Filter) sql(d Dialect) (string, []any, error) {
	var (
		where []string
		args  []any
	)
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if f.ID != "" {
		// Event ids are UUIDs, kept in their canonical form (PostgreSQL's
		// uuid column refuses any other text): an id written otherwise is
		// looked up as the canonical one, and one that is no UUID (a
		// request's, as a causation id may be) matches nothing.
		if id, err := uuid.Parse(f.ID); err == nil {
			add("event_id = ?", id.String())
		} else {
			add("0 = 1")
		}
	}
	if f.Stream != "" {
		add("stream = ?", f.Stream)
	}
	if f.StreamPrefix != "" {
		// A range rather than LIKE/GLOB: it uses the (stream, version)
		// index and needs no escaping of % _ * ?.
		if end, ok := prefixEnd(f.StreamPrefix); ok {
			add("stream >= ? AND stream < ?", f.StreamPrefix, end)
		} else {
			add("stream >= ?", f.StreamPrefix)
		}
	}
	// The actor and the causation id are columns of their own
	// (migration 0008_audit_columns.sql), '' where an event has none.
	// The causation index holds only the events that have one, and says
	// so: the engines take it for a query that says so too.
	if f.Actor != "" {
		add("actor = ?", f.Actor)
	}
	if f.CausationID != "" {
		add("causation_id = ? AND causation_id <> ''", f.CausationID)
	}
	if f.CausedBy != "" {
		add(d.effects, f.CausedBy)
	}
	switch len(f.Types) {
	case 0:
	case 1:
		// The type index gives one type's events in position order.
		add("type = ?", f.Types[0])
	default:
		// Several types from the type index come out of order and would
		// all be read and sorted before the first page: every heartbeat
		// of a long log, for one of them. Unindexed, the way in is the
		// other conditions', or the log in position order.
		add(d.unindexed+"type IN (?"+strings.Repeat(",?", len(f.Types)-1)+")", stringsToArgs(f.Types)...)
	}
	if len(f.ExceptTypes) > 0 {
		add(d.unindexed+"type NOT IN (?"+strings.Repeat(",?", len(f.ExceptTypes)-1)+")", stringsToArgs(f.ExceptTypes)...)
	}
	for _, t := range []struct {
		at   time.Time
		cond string
	}{{f.Since, "recorded_at >= ?"}, {f.Until, "recorded_at < ?"}} {
		if t.at.IsZero() {
			continue
		}
		if err := checkTimeRange(t.at); err != nil {
			return "", nil, fmt.Errorf("query events: %w", err)
		}
		add(t.cond, t.at.UnixNano())
	}
	if f.After > 0 {
		add("position > ?", f.After)
	}
	if f.UpToVersion > 0 {
		if f.Stream == "" {
			return "", nil, fmt.Errorf("query events: a version bound (%d) needs a stream", f.UpToVersion)
		}
		add("version <= ?", f.UpToVersion)
	}
	if f.Before > 0 {
		if f.Stream != "" {
			// Within one stream the (stream, version) index is the way
			// in; the unary + keeps SQLite from reading the log back
			// from Before instead and sorting what it finds.
			add("+position < ?", f.Before)
		} else {
			add("position < ?", f.Before)
		}
	}
	if f.Limit < 0 {
		return "", nil, fmt.Errorf("query events: limit %d is negative", f.Limit)
	}
	var b strings.Builder
	b.WriteString("SELECT " + d.columns + " FROM events")
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	// Within one stream, versions are in the order of positions, and the
	// (stream, version) index gives that order without a sort: reading
	// the newest events of a stream a year long stops at them.
	// The newest events recorded before a time, of the whole log, are
	// the recorded_at index's last entries before it: ordered by
	// position, SQLite would read every entry before the time (ten
	// million, for an hour ago in a long log) and sort them. Recorded
	// times follow positions, but for a clock stepped back.
	order := "position"
	switch {
	case f.Stream != "":
		order = "version"
	case f.Newest && f.Limit > 0 && !f.Until.IsZero() && f.StreamPrefix == "" && len(f.Types) == 0 && len(f.ExceptTypes) == 0 && f.ID == "" && f.Actor == "" && f.CausationID == "" && f.CausedBy == "":
		order = "recorded_at DESC, position"
	}
	if f.Newest && f.Limit > 0 {
		b.WriteString(" ORDER BY " + order + " DESC LIMIT ?")
		return "SELECT " + d.columns + " FROM (" + b.String() + ") AS newest ORDER BY position", append(args, f.Limit), nil
	}
	b.WriteString(" ORDER BY " + order)
	if f.Limit > 0 {
		b.WriteString(" LIMIT ?")
		args = append(args, f.Limit)
	}
	return b.String(), args, nil
}

// prefixEnd is the smallest string greater than every string starting with
// prefix, in byte order (SQLite's BINARY collation); ok is false when there
// is none (prefix is all 0xff bytes).
func prefixEnd(prefix string) (string, bool) {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

func stringsToArgs(ss []string) []any {
	args := make([]any, len(ss))
	for i, s := range ss {
		args[i] = s
	}
	return args
}
