package projections

import (
	"context"
	"database/sql"
	"fmt"
	"maps"

	"herd/domain"
	"herd/events"
	"herd/projections/command"
)

// storeDerivedLabels gives the node rows written before herd stored its
// derived labels (herd.dev/kind) those labels, once, as the node's next
// event would (domain.WithDerivedLabels): so the live view equals a
// rebuild of the log from the first start on, and selectors see the kind
// of a node that has been silent since.
func storeDerivedLabels(ctx context.Context, db *sql.DB) error {
	return upgradeOnce(ctx, db, derivedLabelsMark, func(tx *sql.Tx) error {
		stale, err := queryRows(ctx, tx, "nodes without derived labels", unmarshalNode,
			`SELECT data FROM node_rows WHERE deleted = 0 AND instr(CAST(data AS TEXT), ?) = 0`, `"`+domain.LabelKind+`":`)
		if err != nil {
			return err
		}
		for _, n := range stale {
			up := domain.WithDerivedLabels(n)
			if maps.Equal(up.Labels, n.Labels) {
				continue
			}
			if err := upsertNode(ctx, command.NewViewTx(tx, events.EngineSQLite.Dialect()), up); err != nil {
				return fmt.Errorf("node %s: %w", n.Name, err)
			}
		}
		return nil
	})
}

// derivedLabelsMark names storeDerivedLabels' mark in
// projection_checkpoints: a database that has it needs no upgrade.
const derivedLabelsMark = "node-derived-labels"
