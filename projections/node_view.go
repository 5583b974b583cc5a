package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// NodeView answers queries about nodes from the node view.
type NodeView struct {
	db *viewstore.DB
	// w, when set, answers Get from the unit of work's memory where it
	// holds the node as last committed (Writer.currentNode).
	w *Writer
}

// Remembering is v answering Get, where it can, with the node as w last
// committed it instead of reading its row: a node just registered or
// just heard from is read by the next requests and the reconcilers
// before its row's pages are back in SQLite's cache of this connection
// (every commit empties the other connections').
func (v *NodeView) Remembering(w *Writer) *NodeView { return &NodeView{db: v.db, w: w} }

// NewNodeView returns a NodeView reading the views beside log.
func NewNodeView(log events.Log) *NodeView {
	return &NodeView{db: viewstore.NewDB(log)}
}

// Get returns the named node, or domain.ErrNotFound.
func (v *NodeView) Get(ctx context.Context, name string) (domain.Node, error) {
	n, ok := v.w.currentNode(name)
	if ok {
		if n.Deleted {
			return domain.Node{}, fmt.Errorf("node %q: %w", name, domain.ErrNotFound)
		}
		return n, nil
	}
	n, err := loadNode(ctx, v.db, name)
	if err == nil && n.Deleted {
		return domain.Node{}, fmt.Errorf("node %q: %w", name, domain.ErrNotFound)
	}
	return n, err
}

// GetIncludingDeleted returns the named node even when it was deleted (a
// tombstone), or domain.ErrNotFound when herd never saw it.
func (v *NodeView) GetIncludingDeleted(ctx context.Context, name string) (domain.Node, error) {
	return loadNode(ctx, v.db, name)
}

// List returns every node in name order and the log head at the moment of
// reading, which is the list's resourceVersion. Both come from one SQL
// statement, so they are consistent with each other.
func (v *NodeView) List(ctx context.Context) ([]domain.Node, int64, error) {
	return decodeNodes(nodeRows.List(ctx, v.db))
}

// decodeNodes rebuilds the nodes of rows read at the log's head.
var decodeNodes = rowsDecoder("node rows", unmarshalNode)

// loadNode reads a node's row, tombstones included, or domain.ErrNotFound.
func loadNode(ctx context.Context, q viewstore.Querier, name string) (domain.Node, error) {
	data, err := nodeRows.Get(ctx, q, name)
	return decodeRow("node", name, data, err, unmarshalNode)
}
