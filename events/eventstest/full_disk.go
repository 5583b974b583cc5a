package eventstest

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"herd/events"
)

// FillDisk makes every connection of the store answer a write that needs
// a new page as a full disk does (SQLITE_FULL, "database or disk is
// full"), through SQLite's max_page_count, which each connection keeps
// for itself: it sets the limit on the connection the store keeps for
// writes, takes every other connection the pool may open, sets each one's
// limit to the pages the file has now, and gives them back. The returned
// function lifts the limit again, as freeing disk space would.
func FillDisk(ctx context.Context, store *events.Store) (free func() error, err error) {
	if err := setMaxPageCount(ctx, store, 1); err != nil {
		return nil, err
	}
	return func() error { return setMaxPageCount(ctx, store, math.MaxUint32-1) }, nil
}

// setMaxPageCount sets max_page_count on every connection of the store:
// the one kept for writes, then all the pool's others at once. SQLite
// raises a limit below the file's page count to that count.
func setMaxPageCount(ctx context.Context, store *events.Store, pages int64) error {
	pragma := fmt.Sprintf("PRAGMA max_page_count = %d", pages)
	if err := store.WithWriteConn(ctx, func(c *sql.Conn) error {
		_, err := c.ExecContext(ctx, pragma)
		return err
	}); err != nil {
		return fmt.Errorf("fill the disk: %w", err)
	}
	db := store.DB()
	// The pool's connections less the one kept for writes, which the
	// pool counts as open.
	conns := db.Stats().MaxOpenConnections - 1
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
		if _, err := c.ExecContext(ctx, pragma); err != nil {
			return fmt.Errorf("fill the disk: %w", err)
		}
	}
	return nil
}
