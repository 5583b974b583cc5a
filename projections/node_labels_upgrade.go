package projections

import (
	"context"
	"fmt"
	"maps"

	"herd/domain"
	"herd/projections/viewstore"
)

// storeDerivedLabels gives the node rows written before herd stored its
// derived labels (herd.dev/kind) those labels, once, as the node's next
// event would (domain.WithDerivedLabels): so the live view equals a
// rebuild of the log from the first start on, and selectors see the kind
// of a node that has been silent since.
func storeDerivedLabels(ctx context.Context, db *viewstore.DB) error {
	return viewstore.UpgradeOnce(ctx, db, derivedLabelsMark, func(tx *viewTx) error {
		stale, err := viewstore.NodesWithout(ctx, tx, domain.LabelKind)
		if err != nil {
			return err
		}
		for _, data := range stale {
			n, err := unmarshalNode(data)
			if err != nil {
				return err
			}
			up := domain.WithDerivedLabels(n)
			if maps.Equal(up.Labels, n.Labels) {
				continue
			}
			if err := upsertNode(ctx, tx, up); err != nil {
				return fmt.Errorf("node %s: %w", n.Name, err)
			}
		}
		return nil
	})
}

// derivedLabelsMark names storeDerivedLabels' mark in
// projection_checkpoints: a database that has it needs no upgrade.
const derivedLabelsMark = "node-derived-labels"
