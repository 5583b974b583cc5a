package viewstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

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

// TimelinePlace is an entry's place in the timeline: the log position
// of its event and its seq among that event's entries.
type TimelinePlace struct {
	Position int64
	Seq      int
}

// Timeline is the node timeline's table, on one engine or on whichever a
// handle is of (NewTimeline). Its rows are added as their events are
// folded, never changed, and read in log order (position, then seq); a
// rebuild empties the table and adds them again.
//
// One event's entries are stored in one row (see timelineStore): its
// first entry in the row's columns, at the event's position and seq 0,
// the further ones encoded in the row's column more. A herd before that
// wrote a row an entry, each at its own seq; such rows read back as
// before, beside the new ones. Every read gives entries, one TimelineRow
// each, whichever way they are stored, and counts its limit in entries.
type Timeline interface {
	// Add writes r as the only entry of its event: AddAll of r alone.
	Add(ctx context.Context, x Execer, r TimelineRow) error
	// AddAll writes rs, the entries of one event or of several one after
	// the other, each event's in one row: an event's entries come
	// together, at one position and of one node, their seqs 0, 1, 2, ...
	// in order. Entries not so are refused before anything of rs is
	// written; an event at a position a stored row has is an error, as
	// an insert of a taken key is (its transaction is then rolled back).
	AddAll(ctx context.Context, x Execer, rs []TimelineRow) error
	// Node is up to limit entries of node after the log position after,
	// oldest first; limit 0 or less means all of them.
	Node(ctx context.Context, q Querier, node string, after int64, limit int) ([]TimelineRow, error)
	// NodeAfterEntry is up to limit entries of node after its entry at
	// after, oldest first: the further entries of that entry's event,
	// then those of the events after it; limit 0 or less means all of
	// them. A page of Node or NodeAfterEntry continues from its last
	// entry's place so, whether its limit cut inside an event or not.
	NodeAfterEntry(ctx context.Context, q Querier, node string, after TimelinePlace, limit int) ([]TimelineRow, error)
	// Recent is the newest limit entries of every node, oldest first;
	// limit 0 or less means all of them.
	Recent(ctx context.Context, q Querier, limit int) ([]TimelineRow, error)
	// Between is every node's entries with a log position in (after,
	// upTo], oldest first.
	Between(ctx context.Context, q Querier, after, upTo int64) ([]TimelineRow, error)
}

// timelineColumns are what a timeline read selects, in scanTimeline's
// order.
const timelineColumns = "position, seq, node, at, kind, reason, message, type, more"

// The timeline's statements, with "?" markers. The insert is the one a
// rebuild gathers into many-row inserts: its text is the same on every
// call. A read's limit counts rows, each of at least one entry: the
// entries past the caller's limit are dropped after the rows are read.
const (
	timelineAddSQL  = "INSERT INTO node_timeline (" + timelineColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
	timelineNodeSQL = "SELECT " + timelineColumns + " FROM node_timeline WHERE node = ? AND position > ? ORDER BY position, seq LIMIT ?"
	// From an event's position on, its entries up to the place read and
	// dropped: rows of an older herd's layout, a row an entry, are read
	// too, one for each seq up to it at most.
	timelineNodeFromSQL = "SELECT " + timelineColumns + " FROM node_timeline WHERE node = ? AND position >= ? ORDER BY position, seq LIMIT ?"
	timelineRecentSQL   = "SELECT " + timelineColumns + " FROM (SELECT " + timelineColumns +
		" FROM node_timeline ORDER BY position DESC, seq DESC LIMIT ?) t ORDER BY position, seq"
	timelineBetweenSQL = "SELECT " + timelineColumns + " FROM node_timeline WHERE position > ? AND position <= ? ORDER BY position, seq"
)

// timelineTable is the node timeline's table: a row an event (its first
// entry in the columns, the further ones in more), keyed by its place in
// the log, and the index a node's entries are read through. SQLite's
// first file made it without type and more and PostgreSQL's without
// more: a database from then gets them here, type typed as below.
func timelineTable() Table {
	return Table{
		Name: "node_timeline",
		Columns: []Column{
			{Name: "position", Type: TypeInt},
			{Name: "seq", Type: TypeInt32},
			{Name: "node", Type: TypeKeyText},
			{Name: "at", Type: TypeText},
			{Name: "kind", Type: TypeText},
			{Name: "reason", Type: TypeText},
			{Name: "message", Type: TypeText},
			{Name: "type", Type: TypeText, Default: "'Normal'", Fill: Fill{SQLite: timelineTypeFill, Postgres: timelineTypeFill}},
			{Name: "more", Type: TypeText, Null: true},
		},
		Key:     []string{"position", "seq"},
		Indexes: []TableIndex{{Name: "node_timeline_by_node", Columns: []string{"node", "position"}}},
	}
}

// timelineTypeFill types the entries an older herd wrote before a
// timeline entry had a type, as that herd's next one did (SQLite's
// 0009, retired), by the rules the timeline types an entry with, read
// from its kind, reason and message: Warning for what an operator should
// look at (a node NotReady, silent or restarted, a pressure condition
// True, a failed kubelet poll, a taint herd put for trouble, pods
// evicted by a drain), the default Normal for the rest. `herd replay`
// rewrites them exactly. The same statement on both engines, though it
// runs on SQLite only (whose LIKE ignores ASCII case, as 0009's did):
// PostgreSQL's first files made the column.
const timelineTypeFill = `UPDATE node_timeline SET type = 'Warning'
    WHERE kind IN ('HeartbeatMissed', 'BecameNotReady', 'ScrapeFailed', 'Restarted', 'Draining')
        OR (kind = 'Tainted' AND reason <> 'set by an operator')
        OR (kind = 'ConditionChanged' AND (
            ((message LIKE 'Ready %' OR message LIKE 'KubeletReachable %') AND (message LIKE '% -> False%' OR message LIKE '% -> Unknown%'))
            OR (message NOT LIKE 'Ready %' AND message NOT LIKE 'KubeletReachable %' AND (message LIKE '% -> True%' OR message LIKE '% -> Unknown%'))))`

// timelineStore is the node timeline in one engine, shaped by its
// dialect as objectStore is.
//
// An event's entries are one row, not a row each: a mark of a silent
// kubelet's node stands for about nine (the mark, its conditions gone
// Unknown, NotReady, the unreachable taints), and on SQLite each row's
// own work (its insert and its index entry) was most of what a mark's
// statements cost, which no way of sending the rows saved. The further
// entries are kept in the column more as JSON, an array of
// [at, kind, reason, message, type] arrays, at "" where it is the
// first entry's: text both engines store as it is and can read in SQL
// (json_each, jsonb_array_elements; verify compares entries so,
// TimelineEntriesSQL), that an operator reads in a SQL shell, and that
// costs a mark one encoding of a few hundred bytes. NULL when the event
// has one entry, as every row an older herd wrote.
type timelineStore struct {
	d                               events.Dialect
	node, nodeFrom, recent, between string
}

// NewSQLiteTimeline is the node timeline in SQLite.
func NewSQLiteTimeline() Timeline { return newTimelineStore(events.EngineSQLite.Dialect()) }

// NewPostgresTimeline is the node timeline in PostgreSQL.
func NewPostgresTimeline() Timeline { return newTimelineStore(events.EnginePostgres.Dialect()) }

func newTimelineStore(d events.Dialect) *timelineStore {
	return &timelineStore{
		d:        d,
		node:     d.Bind(timelineNodeSQL),
		nodeFrom: d.Bind(timelineNodeFromSQL),
		recent:   d.Bind(timelineRecentSQL),
		between:  d.Bind(timelineBetweenSQL),
	}
}

func (s *timelineStore) Add(ctx context.Context, x Execer, r TimelineRow) error {
	return s.AddAll(ctx, x, []TimelineRow{r})
}

func (s *timelineStore) AddAll(ctx context.Context, x Execer, rs []TimelineRow) error {
	// Every event is checked and encoded before the first is written.
	type event struct {
		head TimelineRow
		more any // nil (NULL), or the further entries' JSON
		// apart is an event whose text JSON cannot carry as it is (not
		// UTF-8): written a row an entry, as an older herd did.
		apart []TimelineRow
	}
	var evs []event
	for len(rs) > 0 {
		n := 1
		for n < len(rs) && rs[n].Position == rs[0].Position {
			n++
		}
		entries := rs[:n]
		rs = rs[n:]
		for i, r := range entries {
			if r.Seq != i {
				return fmt.Errorf("node_timeline: the entries at position %d are seq %d where %d comes: an event's entries are added together, from seq 0, in order", r.Position, r.Seq, i)
			}
			if r.Node != entries[0].Node {
				return fmt.Errorf("node_timeline: the entries at position %d are of nodes %q and %q: one event's are of one node", r.Position, entries[0].Node, r.Node)
			}
		}
		more, ok := encodeTimelineMore(entries)
		if !ok {
			evs = append(evs, event{apart: entries})
			continue
		}
		evs = append(evs, event{head: entries[0], more: more})
	}
	for _, e := range evs {
		if e.apart != nil {
			for _, r := range e.apart {
				if err := s.add(ctx, x, r, nil); err != nil {
					return err
				}
			}
			continue
		}
		if err := s.add(ctx, x, e.head, e.more); err != nil {
			return err
		}
	}
	return nil
}

// add writes one row: r, and more in its column more.
func (s *timelineStore) add(ctx context.Context, x Execer, r TimelineRow, more any) error {
	return exec(ctx, x, "node_timeline", timelineAddSQL,
		r.Position, r.Seq, r.Node, r.At.UTC().Format(time.RFC3339Nano), r.Kind, r.Reason, r.Message, r.Type, more)
}

// encodeTimelineMore is the column more of the row of one event's
// entries: nil (NULL) for a single entry, else the JSON of the further
// ones. ok is false when their text is not all UTF-8, which JSON would
// not keep as it is.
func encodeTimelineMore(entries []TimelineRow) (more any, ok bool) {
	if len(entries) == 1 {
		return nil, true
	}
	at := entries[0].At.UTC().Format(time.RFC3339Nano)
	further := make([][5]string, len(entries)-1)
	for i, r := range entries[1:] {
		rat := r.At.UTC().Format(time.RFC3339Nano)
		if rat == at {
			rat = ""
		}
		further[i] = [5]string{rat, r.Kind, r.Reason, r.Message, r.Type}
		for _, s := range further[i] {
			if !utf8.ValidString(s) {
				return nil, false
			}
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(further); err != nil {
		return nil, false // strings only: it cannot fail
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), true
}

func (s *timelineStore) Node(ctx context.Context, q Querier, node string, after int64, limit int) ([]TimelineRow, error) {
	rs, err := scanTimeline(ctx, q, s.node, s.d.Args([]any{node, after, events.LimitOf(limit)})...)
	if limit > 0 && len(rs) > limit {
		rs = rs[:limit]
	}
	return rs, err
}

// maxTimelineSeq bounds the seq of a place to read after: an event
// stands for a few entries, and a place past it reads the rows of the
// event and after without a bound of rows.
const maxTimelineSeq = 1 << 20

func (s *timelineStore) NodeAfterEntry(ctx context.Context, q Querier, node string, after TimelinePlace, limit int) ([]TimelineRow, error) {
	if after.Seq < 0 {
		return s.Node(ctx, q, node, after.Position-1, limit)
	}
	// The rows at after's position holding its entries up to after.Seq
	// are at most after.Seq+1 (a row each, at most, in an older herd's
	// layout), read beside the limit's.
	rows := 0
	if limit > 0 && after.Seq < maxTimelineSeq {
		rows = limit + after.Seq + 1
	}
	rs, err := scanTimeline(ctx, q, s.nodeFrom, s.d.Args([]any{node, after.Position, events.LimitOf(rows)})...)
	if err != nil {
		return nil, err
	}
	kept := rs[:0]
	for _, r := range rs {
		if r.Position == after.Position && r.Seq <= after.Seq {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		return nil, nil
	}
	if limit > 0 && len(kept) > limit {
		kept = kept[:limit]
	}
	return kept, nil
}

func (s *timelineStore) Recent(ctx context.Context, q Querier, limit int) ([]TimelineRow, error) {
	rs, err := scanTimeline(ctx, q, s.recent, s.d.Args([]any{events.LimitOf(limit)})...)
	if limit > 0 && len(rs) > limit {
		rs = rs[len(rs)-limit:]
	}
	return rs, err
}

func (s *timelineStore) Between(ctx context.Context, q Querier, after, upTo int64) ([]TimelineRow, error) {
	return scanTimeline(ctx, q, s.between, after, upTo)
}

// scanTimeline runs query, which selects timelineColumns, and reads its
// rows' entries, each row's in seq order.
func scanTimeline(ctx context.Context, q Querier, query string, args ...any) ([]TimelineRow, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("node_timeline: %w", err)
	}
	defer rows.Close()
	var out []TimelineRow
	for rows.Next() {
		var (
			r    TimelineRow
			at   string
			more []byte
		)
		if err := rows.Scan(&r.Position, &r.Seq, &r.Node, &at, &r.Kind, &r.Reason, &r.Message, &r.Type, &more); err != nil {
			return nil, fmt.Errorf("node_timeline: %w", err)
		}
		if r.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("node_timeline @%d: %w", r.Position, err)
		}
		out = append(out, r)
		if more == nil {
			continue
		}
		var further [][5]string
		if err := json.Unmarshal(more, &further); err != nil {
			return nil, fmt.Errorf("node_timeline @%d: its further entries: %w", r.Position, err)
		}
		for i, f := range further {
			e := r
			e.Seq = r.Seq + 1 + i
			if f[0] != "" {
				if e.At, err = time.Parse(time.RFC3339Nano, f[0]); err != nil {
					return nil, fmt.Errorf("node_timeline @%d/%d: %w", e.Position, e.Seq, err)
				}
			}
			e.Kind, e.Reason, e.Message, e.Type = f[1], f[2], f[3], f[4]
			out = append(out, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("node_timeline: %w", err)
	}
	return out, nil
}

// TimelineEntriesSQL is a query of every entry of table, a copy of the
// node timeline's table on engine, one row each as a row an entry read
// (position, seq, node, at, kind, reason, message, type), whichever way
// they are stored: what replay --verify compares, so that rows an older
// herd wrote, a row an entry, equal a rebuild's, a row an event. The
// entries' order is not given.
func TimelineEntriesSQL(engine events.Engine, table string) string {
	const head = "SELECT position, seq, node, at, kind, reason, message, type FROM %[1]s UNION ALL "
	if engine == events.EnginePostgres {
		return fmt.Sprintf(head+"SELECT t.position, t.seq + e.ord, t.node, COALESCE(NULLIF(e.v->>0, ''), t.at), "+
			"e.v->>1, e.v->>2, e.v->>3, e.v->>4 FROM %[1]s t CROSS JOIN LATERAL jsonb_array_elements(t.more::jsonb) "+
			"WITH ORDINALITY AS e(v, ord) WHERE t.more IS NOT NULL", table)
	}
	return fmt.Sprintf(head+"SELECT t.position, t.seq + 1 + j.key, t.node, COALESCE(NULLIF(json_extract(j.value, '$[0]'), ''), t.at), "+
		"json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]'), json_extract(j.value, '$[4]') "+
		"FROM %[1]s t, json_each(t.more) j WHERE t.more IS NOT NULL", table)
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

func (e timelineEngines) NodeAfterEntry(ctx context.Context, q Querier, node string, after TimelinePlace, limit int) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.NodeAfterEntry(ctx, q, node, after, limit) })
}

func (e timelineEngines) Recent(ctx context.Context, q Querier, limit int) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.Recent(ctx, q, limit) })
}

func (e timelineEngines) Between(ctx context.Context, q Querier, after, upTo int64) ([]TimelineRow, error) {
	return get(e.byEngine, q, func(s Timeline) ([]TimelineRow, error) { return s.Between(ctx, q, after, upTo) })
}
