package eventstest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
)

// FillDisk makes every connection of db answer a write that needs a new
// page as a full disk does (SQLITE_FULL, "database or disk is full"),
// through SQLite's max_page_count, which each connection keeps for itself:
// it takes every connection the pool may open, sets each one's limit to
// the pages the file has now, and gives them back. The returned function
// lifts the limit again, as freeing disk space would.
func FillDisk(ctx context.Context, db *sql.DB) (free func() error, err error) {
	conns := db.Stats().MaxOpenConnections
	if err := setMaxPageCount(ctx, db, conns, 1); err != nil {
		return nil, err
	}
	return func() error { return setMaxPageCount(ctx, db, conns, math.MaxUint32-1) }, nil
}

// setMaxPageCount sets max_page_count on conns connections of db at
// once; SQLite raises a limit below the file's page count to that count.
func setMaxPageCount(ctx context.Context, db *sql.DB, conns int, pages int64) error {
	held := make([]*sql.Conn, 0, conns)
	defer func() {
		for _, c := range held {
			_ = c.Close()
		}
	}()
	for range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("fill the disk: %w", err)
		}
		held = append(held, c)
		if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
			return fmt.Errorf("fill the disk: %w", err)
		}
	}
	return nil
}
