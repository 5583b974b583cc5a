package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"herd/events"
	"herd/projections/command"
)

// fillIPPoolsFree derives the free addresses (migration 0021, PostgreSQL
// 0010) of the pools an older herd wrote, from their allocations, as the
// unit of work keeps them from then on: the live view then equals a
// rebuild of the log. A pool already filled is not read again, so a start
// after the first costs one query of the few pool rows.
func fillIPPoolsFree(ctx context.Context, v *viewDB) error {
	type stale struct {
		pool    string
		version int64
	}
	rows, err := v.QueryContext(ctx, `SELECT pool, version FROM ip_pools WHERE free IS NULL`)
	if err != nil {
		return fmt.Errorf("fill IP pools' free addresses: %w", err)
	}
	var pools []stale
	for rows.Next() {
		var s stale
		if err := rows.Scan(&s.pool, &s.version); err != nil {
			_ = rows.Close()
			return fmt.Errorf("fill IP pools' free addresses: %w", err)
		}
		pools = append(pools, s)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("fill IP pools' free addresses: %w", err)
	}
	for _, s := range pools {
		if err := fillIPPoolFree(ctx, v.db, v.d, s.pool, s.version); err != nil {
			return err
		}
	}
	return nil
}

// fillIPPoolFree fills one pool's row in a transaction of its own; a
// writer that changed the pool meanwhile wrote its free addresses itself,
// and the row is left as it wrote it.
func fillIPPoolFree(ctx context.Context, db *sql.DB, d events.Dialect, pool string, version int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("fill IP pool %s's free addresses: %w", pool, err)
	}
	defer func() { _ = tx.Rollback() }()
	vt := command.NewViewTx(tx, d)
	all, err := scanAllocations(ctx, vt, `WHERE pool = ?`, pool)
	if err != nil {
		return err
	}
	p := ipPoolFromRows(pool, version, all)
	if _, err := vt.ExecContext(ctx, `UPDATE ip_pools SET in_use = ?, free = ? WHERE pool = ? AND version = ? AND free IS NULL`,
		p.InUse, encodeIPPoolFree(p), pool, version); err != nil {
		return fmt.Errorf("fill IP pool %s's free addresses: %w", pool, err)
	}
	return tx.Commit()
}
