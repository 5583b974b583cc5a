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
	of:      domain.NodeAggregate,
	fresh:   func(name string) domain.Node { return domain.Node{Name: name} },
	load:    loadNode,
	version: func(n domain.Node) int64 { return n.Version },
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
		for _, e := range timelineEntries(name, rec, ev) {
			if _, err := x.ExecContext(ctx, insertTimelineSQL, e.args(0)...); err != nil {
				return fmt.Errorf("timeline %s@%d: %w", name, rec.Position, err)
			}
		}
		return nil
	},
	upsert: func(ctx context.Context, x execer, _ string, n domain.Node, _ int64) error {
		row, err := toNodeRow(n)
		if err != nil {
			return err
		}
		if _, err := x.ExecContext(ctx, upsertNodeSQL, row.args()...); err != nil {
			return fmt.Errorf("node view %s: %w", n.Name, err)
		}
		return nil
	},
	tables: []viewTable{{"nodes", "name"}, {"node_timeline", "position, seq"}},
	// A node is written on every heartbeat; decoding its row each time
	// was the largest cost of one.
	cached:    true,
	observers: func(w *Writer) []Observer[domain.Node] { return w.nodeObservers.load() },
})

var _ domain.NodeRepository = (*Writer)(nil)

// UpdateNode implements domain.NodeRepository.
func (w *Writer) UpdateNode(ctx context.Context, name string, update func(domain.Node) ([]domain.Event, error)) (domain.Node, error) {
	return nodes.update(ctx, w, name, update)
}

// GetNode implements domain.NodeRepository.
func (w *Writer) GetNode(ctx context.Context, name string) (domain.Node, error) {
	return NewNodeView(w.store).Get(ctx, name)
}

// nodeRow is the node view's row for n.
type nodeRow struct {
	name            string
	kind            string
	deleted         bool
	version         int64
	resourceVersion int64
	agentState      string
	ready           string
	registeredAt    int64
	lastHeartbeat   int64
	data            []byte
}

func toNodeRow(n domain.Node) (nodeRow, error) {
	data, err := marshalStored(n)
	if err != nil {
		return nodeRow{}, fmt.Errorf("encode node %s: %w", n.Name, err)
	}
	return nodeRow{
		name:            n.Name,
		kind:            string(n.Kind),
		deleted:         n.Deleted,
		version:         n.Version,
		resourceVersion: n.ResourceVersion,
		agentState:      string(n.AgentState),
		ready:           string(readyStatus(n)),
		registeredAt:    unixNanos(n.RegisteredAt),
		lastHeartbeat:   unixNanos(n.LastHeartbeat),
		data:            data,
	}, nil
}

// unmarshalNode rebuilds a node from its stored row; it is the only way a
// Node is read back from storage.
func unmarshalNode(data []byte) (domain.Node, error) {
	var n domain.Node
	if err := unmarshalStored(data, &n); err != nil {
		return domain.Node{}, fmt.Errorf("decode node row: %w", err)
	}
	return n, nil
}

const upsertNodeSQL = `INSERT INTO nodes (name, kind, deleted, version, resource_version, agent_state, ready, registered_at, last_heartbeat, data)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, deleted = excluded.deleted,
  version = excluded.version, resource_version = excluded.resource_version,
  agent_state = excluded.agent_state, ready = excluded.ready,
  registered_at = excluded.registered_at, last_heartbeat = excluded.last_heartbeat, data = excluded.data`

func (r nodeRow) args() []any {
	return []any{r.name, r.kind, r.deleted, r.version, r.resourceVersion, r.agentState, r.ready, r.registeredAt, r.lastHeartbeat, r.data}
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
