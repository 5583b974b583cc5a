package projections

import (
	"context"
	"fmt"
	"time"

	"herd/domain"
	"herd/events"
)

// nodes describes the node: its row in nodes, and its timeline entries in
// node_timeline beside it.
var nodes = describe(&aggregate[domain.Node]{
	of:       domain.NodeAggregate,
	fresh:    func(name string) domain.Node { return domain.Node{Name: name} },
	load:     loadNode,
	version:  func(n domain.Node) int64 { return n.Version },
	position: func(n domain.Node) int64 { return n.ResourceVersion },
	evolve: func(n domain.Node, rec events.Record, ev domain.Event) domain.Node {
		n = domain.EvolveNode(n, ev)
		// The stored version, not Evolve's count: the retention policy
		// deletes old heartbeats, so a rebuild folds fewer events than
		// the stream's version says.
		n.Version = rec.Version
		n.ResourceVersion = rec.Position
		return n
	},
	eventRows: func(ctx context.Context, x execer, name string, rec events.Record, ev domain.Event) error {
		// One event may stand for several entries (a HeartbeatMissed and
		// what it changed): each its own seq under the event's position.
		for seq, e := range timelineEntries(name, rec, ev) {
			if err := timelineRows.Add(ctx, x, e.row(seq)); err != nil {
				return fmt.Errorf("timeline %s@%d: %w", name, rec.Position, err)
			}
		}
		return nil
	},
	upsert: func(ctx context.Context, x execer, _ string, n domain.Node, _ int64) error {
		return upsertNode(ctx, x, n)
	},
	// A plain heartbeat rewrites only the node's hot row.
	hotOnly: onlyHeartbeats,
	upsertHot: func(ctx context.Context, x execer, _ string, n domain.Node, _ int64) error {
		return upsertNodeHot(ctx, x, n)
	},
	tables: []viewTable{{"nodes", "name"}, {"node_heartbeats", "name"}, {"node_timeline", "position, seq"}},
	// A node is written on every heartbeat; decoding its row each time
	// was the largest cost of one.
	cached:    true,
	observers: func(w *Writer) []Observer[domain.Node] { return w.nodeObservers.load() },
	// Status changes and heartbeats are the fleet's load: decided and
	// encoded outside the write lock.
	prepared:   true,
	atPosition: func(n domain.Node, pos int64) domain.Node { n.ResourceVersion = pos; return n },
})

var _ domain.NodeRepository = (*Writer)(nil)

// UpdateNode implements domain.NodeRepository.
func (w *Writer) UpdateNode(ctx context.Context, name string, update func(domain.Node) ([]domain.Event, error)) (domain.Node, error) {
	return nodes.update(ctx, w, name, update)
}

// GetNode implements domain.NodeRepository: from memory where the unit
// of work holds the node as last committed (currentNode), else its row.
func (w *Writer) GetNode(ctx context.Context, name string) (domain.Node, error) {
	return NewNodeView(w.log).Remembering(w).Get(ctx, name)
}

// currentNode is the node as this herd last committed it, when the unit
// of work holds it and is authoritative for it (command.Unit.Current:
// SQLite, this process the only writer): what a read of its row after
// that commit gives, without the read. Tombstones included. A nil w
// holds nothing.
func (w *Writer) currentNode(name string) (domain.Node, bool) {
	if w == nil {
		return domain.Node{}, false
	}
	s, ok := w.unit.Current(nodes.of.Stream(name))
	if !ok {
		return domain.Node{}, false
	}
	n, ok := s.(domain.Node)
	return n, ok
}

// nodeRow is the node view's cold row for n (see node_hot.go).
type nodeRow struct {
	name         string
	kind         string
	deleted      bool
	agentState   string
	ready        string
	registeredAt int64
	data         []byte
}

func toNodeRow(n domain.Node) (nodeRow, error) {
	data, err := marshalStored(coldOf(n))
	if err != nil {
		return nodeRow{}, fmt.Errorf("encode node %s: %w", n.Name, err)
	}
	return nodeRow{
		name:         n.Name,
		kind:         string(n.Kind),
		deleted:      n.Deleted,
		agentState:   string(n.AgentState),
		ready:        string(readyStatus(n)),
		registeredAt: unixNanos(n.RegisteredAt),
		data:         data,
	}, nil
}

// upsertNode writes both of n's rows: what every change but a plain
// heartbeat does.
func upsertNode(ctx context.Context, x execer, n domain.Node) error {
	row, err := toNodeRow(n)
	if err != nil {
		return err
	}
	if _, err := x.ExecContext(ctx, upsertNodeSQL, row.args()...); err != nil {
		return fmt.Errorf("node view %s: %w", n.Name, err)
	}
	return upsertNodeHot(ctx, x, n)
}

// upsertNodeHot writes n's hot row only.
func upsertNodeHot(ctx context.Context, x execer, n domain.Node) error {
	data, err := marshalStored(hotOf(n))
	if err != nil {
		return fmt.Errorf("encode node %s's heartbeat: %w", n.Name, err)
	}
	if _, err := x.ExecContext(ctx, upsertNodeHotSQL, n.Name, unixNanos(n.LastHeartbeat), data); err != nil {
		return fmt.Errorf("node view %s's heartbeat: %w", n.Name, err)
	}
	return nil
}

const upsertNodeSQL = `INSERT INTO nodes (name, kind, deleted, agent_state, ready, registered_at, data)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, deleted = excluded.deleted,
  agent_state = excluded.agent_state, ready = excluded.ready,
  registered_at = excluded.registered_at, data = excluded.data`

const upsertNodeHotSQL = `INSERT INTO node_heartbeats (name, last_heartbeat, data) VALUES (?, ?, ?)
ON CONFLICT (name) DO UPDATE SET last_heartbeat = excluded.last_heartbeat, data = excluded.data`

func (r nodeRow) args() []any {
	return []any{r.name, r.kind, r.deleted, r.agentState, r.ready, r.registeredAt, r.data}
}

func readyStatus(n domain.Node) domain.ConditionStatus {
	c, _ := n.Condition(domain.ConditionReady)
	return c.Status
}

// unixNanos is t in Unix nanoseconds, 0 for the zero time.
func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
