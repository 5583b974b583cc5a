package viewstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"herd/events"
)

// The SQLite upgrades of what an older herd wrote, which the tables'
// descriptions alone cannot bring up to date: the nodes table made
// before the hot/cold split, and the rows of older herds, with the
// statements of each and the mark each leaves in projection_checkpoints
// so that it runs once per database. A PostgreSQL database was born in
// the views' present shape, so none of them applies there.

// wholeNodeColumns are the columns of the nodes table as SQLite's first
// file (0001) made it, before the hot/cold split, that the split (0012)
// dropped: the node's version, resourceVersion and last heartbeat, each
// also in the row's JSON, which then held the whole node.
var wholeNodeColumns = []string{"version", "resource_version", "last_heartbeat"}

// SplitNodesTable brings a nodes table an older herd made before the
// hot/cold split to the split's columns, as the split's file (0012) did:
// the deadline index over them (0006, where it was applied) and the
// three columns dropped, in one transaction under the migrations' lock.
// It runs before Ensure, which refuses a table with columns its
// description lacks, and which then makes node_heartbeats and node_rows.
// The rows' JSON holds the whole node, so nothing is lost, and each node
// reads whole until it gets its hot row (projections' splitNodeRows).
// Where nodes lacks the columns (split already, or not made yet) it
// changes nothing, so that every start runs it.
func (v *DB) SplitNodesTable(ctx context.Context) error {
	e := v.d.Engine()
	err := events.MigrateTx(ctx, v.db, e, func(tx *sql.Tx) error {
		have, err := tableColumns(ctx, tx, e, "nodes")
		if err != nil {
			return err
		}
		stmts := []string{"DROP INDEX IF EXISTS nodes_by_deadline"}
		for _, c := range wholeNodeColumns {
			if slices.Contains(have, c) {
				stmts = append(stmts, "ALTER TABLE nodes DROP COLUMN "+c)
			}
		}
		if len(stmts) == 1 {
			return nil
		}
		for _, stmt := range stmts {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", stmt, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("split the nodes table: %w", err)
	}
	return nil
}

// UpgradeOnce runs upgrade in one transaction on v, once per database:
// it leaves mark in projection_checkpoints, and a database that has the
// mark is not upgraded again. Its errors are named by mark.
func UpgradeOnce(ctx context.Context, v *DB, mark string, upgrade func(tx *events.ViewTx) error) error {
	err := v.InTx(ctx, func(tx *events.ViewTx) error {
		var done int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM projection_checkpoints WHERE projection = ?`, mark).Scan(&done); err != nil {
			return err
		}
		if done > 0 {
			return nil
		}
		if err := upgrade(tx); err != nil {
			return err
		}
		// Stamped by SQLite's clock: bookkeeping for an operator, never
		// read by herd, and a migration has no clock of herd's to take.
		_, err := tx.ExecContext(ctx, `INSERT INTO projection_checkpoints (projection, position, rebuilt_at)
VALUES (?, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`, mark)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", mark, err)
	}
	return nil
}

// FillLeasesRenewedAt fills the renewed_at column (SQLite's 0013, now
// the leases' description) of the live leases, from the log: the time
// herd recorded the newest event since the lease's last deletion that
// set its renew time.
func FillLeasesRenewedAt(ctx context.Context, x Execer) error {
	if _, err := x.ExecContext(ctx, `UPDATE leases SET renewed_at = COALESCE((
  SELECT MAX(e.recorded_at) FROM events e
  WHERE e.stream = 'lease/' || leases.namespace || '/' || leases.name
    AND (e.type = 'LeaseRenewed'
      OR e.type IN ('LeaseCreated', 'LeaseUpdated') AND json_extract(e.payload, '$.spec.renewTime') IS NOT NULL)
    AND e.position > COALESCE((SELECT MAX(d.position) FROM events d
      WHERE d.stream = e.stream AND d.type = 'LeaseDeleted'), 0)), 0)
WHERE deleted = 0`); err != nil {
		return fmt.Errorf("fill leases' renewal times: %w", err)
	}
	return nil
}

// NodesWithout is the data of the live node rows whose JSON lacks the
// label key label (their labels written before herd stored it).
func NodesWithout(ctx context.Context, q Querier, label string) ([][]byte, error) {
	return allData(ctx, q, "nodes without derived labels",
		`SELECT data FROM node_rows WHERE deleted = 0 AND instr(CAST(data AS TEXT), ?) = 0`, `"`+label+`":`)
}

// NodesWrittenWhole is the data of the node rows written before the
// hot/cold split (SplitNodesTable), which have no hot row, by name.
func NodesWrittenWhole(ctx context.Context, q Querier) ([][]byte, error) {
	return allData(ctx, q, "nodes written whole",
		`SELECT n.data FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM node_heartbeats h WHERE h.name = n.name) ORDER BY n.name`)
}
