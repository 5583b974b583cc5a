package projections

import (
	"context"
	"fmt"

	"herd/projections/viewstore"
)

// dropViewIndexes drops the secondary indexes of the view tables inside
// the rebuild's transaction and returns them, for createViewIndexes to
// create again once the rows are in (viewstore.DropIndexes). Maintained
// row by row, an index puts each entry at a random place in a B-tree
// larger than SQLite's page cache (a node's last heartbeat says nothing
// of its name); created afterwards, it sorts its entries once. Indexes
// behind a primary key or a UNIQUE constraint (without SQL of their own)
// stay. Readers on other connections see the old schema, indexes and
// all, until the commit.
func dropViewIndexes(ctx context.Context, tx *viewTx) ([]viewstore.Index, error) {
	var tables []string
	for _, t := range allViewTables() {
		tables = append(tables, t.name)
	}
	out, err := viewstore.DropIndexes(ctx, tx, tables)
	if err != nil {
		return nil, fmt.Errorf("rebuild: %w", err)
	}
	return out, nil
}

// createViewIndexes creates the indexes dropViewIndexes dropped, with the
// statements they were created with.
func createViewIndexes(ctx context.Context, tx *viewTx, indexes []viewstore.Index) error {
	if err := viewstore.CreateIndexes(ctx, tx, indexes); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	return nil
}
