package projections

import (
	"context"

	"fmt"
)

// viewIndex is a secondary index of a view table, with the statement its
// migration created it with.
type viewIndex struct{ name, sql string }

// dropViewIndexes drops the secondary indexes of the view tables inside
// the rebuild's transaction and returns them, for createViewIndexes to
// create again once the rows are in. Maintained row by row, an index puts
// each entry at a random place in a B-tree larger than SQLite's page
// cache (a node's last heartbeat says nothing of its name); created
// afterwards, it sorts its entries once. Indexes behind a primary key or
// a UNIQUE constraint (without SQL of their own) stay. Readers on other
// connections see the old schema, indexes and all, until the commit.
func dropViewIndexes(ctx context.Context, tx *viewTx) ([]viewIndex, error) {
	var out []viewIndex
	for _, t := range allViewTables() {
		rows, err := tx.QueryContext(ctx, tx.Dialect().TableIndexes(), t.name)
		if err != nil {
			return nil, fmt.Errorf("rebuild: indexes of %s: %w", t.name, err)
		}
		for rows.Next() {
			var ix viewIndex
			if err := rows.Scan(&ix.name, &ix.sql); err != nil {
				rows.Close()
				return nil, fmt.Errorf("rebuild: indexes of %s: %w", t.name, err)
			}
			out = append(out, ix)
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("rebuild: indexes of %s: %w", t.name, err)
		}
	}
	for _, ix := range out {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+ix.name+`"`); err != nil {
			return nil, fmt.Errorf("rebuild: drop index %s: %w", ix.name, err)
		}
	}
	return out, nil
}

// createViewIndexes creates the indexes dropViewIndexes dropped, with the
// statements they were created with.
func createViewIndexes(ctx context.Context, tx *viewTx, indexes []viewIndex) error {
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix.sql); err != nil {
			return fmt.Errorf("rebuild: create index %s: %w", ix.name, err)
		}
	}
	return nil
}
