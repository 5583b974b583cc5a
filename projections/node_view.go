package projections

import (
	"context"
	"database/sql"
	"fmt"

	"herd/domain"
	"herd/events"
)

// NodeView answers queries about nodes from the node view.
type NodeView struct {
	db *sql.DB
}

// NewNodeView returns a NodeView reading db.
func NewNodeView(db *sql.DB) *NodeView { return &NodeView{db: db} }

// Get returns the named node, or domain.ErrNotFound.
func (v *NodeView) Get(ctx context.Context, name string) (domain.Node, error) {
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
	rows, err := v.db.QueryContext(ctx, `SELECT n.data, h.head FROM (SELECT COALESCE(MAX(position), 0) AS head FROM events) h
LEFT JOIN nodes n ON n.deleted = 0 ORDER BY n.name`)
	if err != nil {
		return nil, 0, fmt.Errorf("list nodes: %w", err)
	}
	defer rows.Close()
	var (
		out  []domain.Node
		head int64
	)
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data, &head); err != nil {
			return nil, 0, fmt.Errorf("list nodes: %w", err)
		}
		if data == nil {
			continue
		}
		n, err := unmarshalNode(data)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, n)
	}
	return out, head, rows.Err()
}

// loadNode reads a node's row, tombstones included, or domain.ErrNotFound.
func loadNode(ctx context.Context, q events.Querier, name string) (domain.Node, error) {
	data, err := rowData(ctx, q, fmt.Sprintf("node %q", name), `SELECT data FROM nodes WHERE name = ?`, name)
	if err != nil {
		return domain.Node{}, err
	}
	return unmarshalNode(data)
}
