package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
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
		n = withSharedResources(domain.EvolveNode(n, ev), ev)
		// The stored version, not Evolve's count: the retention policy
		// deletes old heartbeats, so a rebuild folds fewer events than
		// the stream's version says.
		n.Version = rec.Version
		n.ResourceVersion = rec.Position
		return n
	},
	eventRows: func(ctx context.Context, x execer, name string, rec events.Record, ev domain.Event) error {
		// One event may stand for several entries (a HeartbeatMissed and
		// what it changed): each its own seq under the event's position,
		// all of them written as one row (viewstore.Timeline's AddAll): a
		// mark of a kubelet's node, about nine entries, is one insert.
		entries := timelineEntries(name, rec, ev)
		if len(entries) == 0 {
			return nil
		}
		rows := make([]viewstore.TimelineRow, len(entries))
		for seq, e := range entries {
			rows[seq] = e.row(seq)
		}
		if err := timelineRows.AddAll(ctx, x, rows); err != nil {
			return fmt.Errorf("timeline %s@%d: %w", name, rec.Position, err)
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

// nodeRows is the node view's tables behind the views' store port, on
// whichever engine a handle is of.
var nodeRows = viewstore.NewNodes()

// upsertNode writes both of n's rows: what every change but a plain
// heartbeat does. The cold row holds n without its hot part (see
// node_hot.go): the same bytes whatever heartbeats came since the last
// transition.
func upsertNode(ctx context.Context, x execer, n domain.Node) error {
	data, err := marshalStored(coldOf(n))
	if err != nil {
		return fmt.Errorf("encode node %s: %w", n.Name, err)
	}
	if err := nodeRows.Upsert(ctx, x, viewstore.NodeRow{
		Name: n.Name, Kind: string(n.Kind), AgentState: string(n.AgentState), Ready: string(readyStatus(n)),
		Deleted: n.Deleted, RegisteredAt: n.RegisteredAt, Data: data,
	}); err != nil {
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
	if err := nodeRows.UpsertHot(ctx, x, viewstore.NodeHotRow{Name: n.Name, LastHeartbeat: n.LastHeartbeat, Data: data}); err != nil {
		return fmt.Errorf("node view %s's heartbeat: %w", n.Name, err)
	}
	return nil
}

func readyStatus(n domain.Node) domain.ConditionStatus {
	c, _ := n.Condition(domain.ConditionReady)
	return c.Status
}
