package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// groupStatements are one engine's statements for GroupPositions; the
// steps are the same on every engine.
type groupStatements struct {
	// get is the saved position of a group (its one argument); no row
	// for a group not seen before.
	get string
	// lowest is the lowest position saved by the groups whose names
	// begin with its one argument; NULL when there are none.
	lowest string
	// register registers a group at a position, unless another process
	// has registered it meanwhile.
	register string
	// save sets a group's position, registering it if need be.
	save string
}

// sqliteGroupStatements keep the positions in consumer_offsets
// (migrations/0002_consumer_offsets.sql), where watermill's subscribers
// (offsetsAdapter) keep theirs: a herd upgraded from them finds its
// groups there.
var sqliteGroupStatements = groupStatements{
	get:      `SELECT offset_acked FROM consumer_offsets WHERE consumer_group = ?`,
	lowest:   `SELECT MIN(offset_acked) FROM consumer_offsets WHERE substr(consumer_group, 1, length(?1)) = ?1`,
	register: `INSERT INTO consumer_offsets (consumer_group, offset_acked) VALUES (?, ?) ON CONFLICT (consumer_group) DO NOTHING`,
	save:     ackQuery,
}

// GroupPosition is where group resumes; see GroupPositions.
func (l sqliteLog) GroupPosition(ctx context.Context, group, inherit string) (int64, error) {
	return groupPosition(ctx, l.s.db, sqliteGroupStatements, group, inherit)
}

// SaveGroupPosition records group's position.
func (l sqliteLog) SaveGroupPosition(ctx context.Context, group string, position int64) error {
	if err := l.s.execWrite(ctx, sqliteGroupStatements.save, group, position); err != nil {
		return fmt.Errorf("save position %d of consumer group %s: %w", position, group, err)
	}
	return nil
}

// groupPosition is GroupPosition with an engine's statements.
func groupPosition(ctx context.Context, db *sql.DB, st groupStatements, group, inherit string) (int64, error) {
	var pos int64
	err := db.QueryRowContext(ctx, st.get, group).Scan(&pos)
	if err == nil {
		return pos, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("position of consumer group %s: %w", group, err)
	}
	if inherit != "" {
		var lowest sql.NullInt64
		if err := db.QueryRowContext(ctx, st.lowest, inherit).Scan(&lowest); err != nil {
			return 0, fmt.Errorf("position of consumer group %s: inherit from %s*: %w", group, inherit, err)
		}
		pos = lowest.Int64
	}
	if _, err := db.ExecContext(ctx, st.register, group, pos); err != nil {
		return 0, fmt.Errorf("register consumer group %s at %d: %w", group, pos, err)
	}
	// Read again: a process that registered the group first keeps the
	// position it registered, or has saved since.
	if err := db.QueryRowContext(ctx, st.get, group).Scan(&pos); err != nil {
		return 0, fmt.Errorf("position of consumer group %s: %w", group, err)
	}
	return pos, nil
}

// saveGroupPosition is SaveGroupPosition with an engine's statements.
func saveGroupPosition(ctx context.Context, db *sql.DB, st groupStatements, group string, position int64) error {
	if _, err := db.ExecContext(ctx, st.save, group, position); err != nil {
		return fmt.Errorf("save position %d of consumer group %s: %w", position, group, err)
	}
	return nil
}
