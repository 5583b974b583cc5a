package events

import (
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
)

// offsetsAdapter keeps watermill consumer-group positions in the
// consumer_offsets table. Because every subscriber transaction holds
// SQLite's write lock (_txlock=immediate), two subscribers of one group
// never read the same batch: the second waits for the first to ack and
// commit. So no "consumed" bookkeeping is needed, unlike MySQL's adapter.
type offsetsAdapter struct{}

var _ wsql.OffsetsAdapter = offsetsAdapter{}

// nextOffsetQuery is the group's last acked position, 0 for a new group.
const nextOffsetQuery = `SELECT COALESCE((SELECT offset_acked FROM consumer_offsets WHERE consumer_group = ?), 0)`

const ackQuery = `INSERT INTO consumer_offsets (consumer_group, offset_acked) VALUES (?, ?)
ON CONFLICT (consumer_group) DO UPDATE SET
    offset_acked = excluded.offset_acked,
    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`

// registerGroupQuery makes a group visible to operators (and its lag
// measurable) from its first subscription, before it acks anything.
const registerGroupQuery = `INSERT INTO consumer_offsets (consumer_group) VALUES (?) ON CONFLICT (consumer_group) DO NOTHING`

// AckMessageQuery stores the last acked position of the batch.
func (offsetsAdapter) AckMessageQuery(params wsql.AckMessageQueryParams) (wsql.Query, error) {
	return wsql.Query{Query: ackQuery, Args: []any{params.ConsumerGroup, params.LastRow.Offset}}, nil
}

// ConsumedMessageQuery is empty: see offsetsAdapter.
func (offsetsAdapter) ConsumedMessageQuery(wsql.ConsumedMessageQueryParams) (wsql.Query, error) {
	return wsql.Query{}, nil
}

// NextOffsetQuery is the group's last acked position.
func (offsetsAdapter) NextOffsetQuery(params wsql.NextOffsetQueryParams) (wsql.Query, error) {
	return wsql.Query{Query: nextOffsetQuery, Args: []any{params.ConsumerGroup}}, nil
}

// SchemaInitializingQueries refuses; see errSchemaFromMigrations.
func (offsetsAdapter) SchemaInitializingQueries(wsql.OffsetsSchemaInitializingQueriesParams) ([]wsql.Query, error) {
	return nil, errSchemaFromMigrations
}

// BeforeSubscribingQueries registers the group.
func (offsetsAdapter) BeforeSubscribingQueries(params wsql.BeforeSubscribingQueriesParams) ([]wsql.Query, error) {
	return []wsql.Query{{Query: registerGroupQuery, Args: []any{params.ConsumerGroup}}}, nil
}
