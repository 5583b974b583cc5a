package events

import "context"

// postgresGroupStatements keep the positions in consumer_offsets
// (postgres_migrations/0002_consumer_offsets.sql), as on SQLite.
var postgresGroupStatements = groupStatements{
	get:      `SELECT offset_acked FROM consumer_offsets WHERE consumer_group = $1`,
	lowest:   `SELECT MIN(offset_acked) FROM consumer_offsets WHERE starts_with(consumer_group, $1)`,
	register: `INSERT INTO consumer_offsets (consumer_group, offset_acked) VALUES ($1, $2) ON CONFLICT (consumer_group) DO NOTHING`,
	save: `INSERT INTO consumer_offsets (consumer_group, offset_acked) VALUES ($1, $2)
ON CONFLICT (consumer_group) DO UPDATE SET offset_acked = excluded.offset_acked, updated_at = now()`,
}

// GroupPosition is where group resumes; see GroupPositions.
func (p *Postgres) GroupPosition(ctx context.Context, group, inherit string) (int64, error) {
	return groupPosition(ctx, p.db, postgresGroupStatements, group, inherit)
}

// SaveGroupPosition records group's position.
func (p *Postgres) SaveGroupPosition(ctx context.Context, group string, position int64) error {
	return saveGroupPosition(ctx, p.db, postgresGroupStatements, group, position)
}
