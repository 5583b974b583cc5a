package events

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
)

// schemaAdapter is watermill-sql's view of the events table on SQLite
// (watermill-sql ships MySQL and PostgreSQL adapters only). Publishing maps
// message metadata (see the Key constants) to columns; subscribing maps rows
// back. The schema itself comes from migrations, never from watermill.
type schemaAdapter struct {
	selectQuery string
}

var _ wsql.SchemaAdapter = schemaAdapter{}

func newSchemaAdapter(batchSize int) schemaAdapter {
	return schemaAdapter{selectQuery: `SELECT ` + recordColumns + ` FROM events
WHERE position > (` + nextOffsetQuery + `)
ORDER BY position LIMIT ` + strconv.Itoa(batchSize)}
}

const (
	insertPrefix = `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata, actor, causation_id) VALUES `
	// insertTuple binds the payload as a BLOB (no copy of the Go slice into
	// a string) and stores it as TEXT, which SQLite's JSON functions read.
	// The actor and the causation id, which the metadata JSON also holds,
	// are columns of their own for the audit indexes (migration
	// 0008_audit_columns.sql).
	insertTuple    = `(?,?,?,?,?,?,CAST(? AS TEXT),?,?,?),`
	insertArgs     = 10
	maxVariables   = 32766 // SQLITE_MAX_VARIABLE_NUMBER of the bundled SQLite
	maxInsertBatch = maxVariables / insertArgs
)

// insertSQL holds the INSERT for maxInsertBatch rows; the statement for n
// rows is a prefix of it, so building one allocates nothing and equal
// batch sizes share a cached prepared statement.
var insertSQL = sync.OnceValue(func() string {
	return insertPrefix + strings.Repeat(insertTuple, maxInsertBatch)
})

func insertQueryFor(n int) string {
	return insertSQL()[:len(insertPrefix)+n*len(insertTuple)-1]
}

// InsertQuery inserts all msgs with one statement, so that their positions
// are consecutive and the last one is last_insert_rowid().
func (a schemaAdapter) InsertQuery(params wsql.InsertQueryParams) (wsql.Query, error) {
	if params.Topic != Topic {
		return wsql.Query{}, fmt.Errorf("events: topic %q: herd's log has only topic %q", params.Topic, Topic)
	}
	n := len(params.Msgs)
	if n == 0 || n > maxInsertBatch {
		return wsql.Query{}, fmt.Errorf("events: %d messages in one insert; want 1 to %d", n, maxInsertBatch)
	}
	args := make([]any, 0, n*insertArgs)
	var enc rowEncoder
	for _, msg := range params.Msgs {
		if r := appendedRecord(msg); r != nil {
			md, err := enc.json(r.Metadata, r.Continues)
			if err != nil {
				return wsql.Query{}, fmt.Errorf("events: message %s: metadata: %w", msg.UUID, err)
			}
			actor, cause := enc.columns(r.Metadata)
			args = append(args, r.ID, r.Stream, r.Version, r.Type, int64(r.SchemaVersion),
				r.RecordedAt.UnixNano(), []byte(r.Payload), md, actor, cause)
			continue
		}
		// A message published through watermill by someone other than
		// Append carries its Record as string metadata.
		row, err := enc.encode(msg.UUID, msg.Metadata)
		if err != nil {
			return wsql.Query{}, err
		}
		args = append(args, msg.UUID, row.stream, row.version, row.typ, row.schemaVersion,
			row.recordedAt, []byte(msg.Payload), row.metadata, row.actor, row.causationID)
	}
	return wsql.Query{Query: insertQueryFor(n), Args: args}, nil
}

// SelectQuery reads the next batch after the group's acked position.
func (a schemaAdapter) SelectQuery(params wsql.SelectQueryParams) (wsql.Query, error) {
	if params.Topic != Topic {
		return wsql.Query{}, fmt.Errorf("events: topic %q: herd's log has only topic %q", params.Topic, Topic)
	}
	return wsql.Query{Query: a.selectQuery, Args: []any{params.ConsumerGroup}}, nil
}

// UnmarshalMessage turns a row of SelectQuery into a message whose
// metadata carries the whole Record (see RecordFromMessage).
func (a schemaAdapter) UnmarshalMessage(params wsql.UnmarshalMessageParams) (wsql.Row, error) {
	r, err := scanRecord(params.Row)
	if err != nil {
		return wsql.Row{}, err
	}
	msg := toMessage(&r, formatTime(r.RecordedAt))
	return wsql.Row{Offset: r.Position, UUID: []byte(r.ID), Payload: r.Payload, Msg: msg}, nil
}

// errSchemaFromMigrations refuses watermill's schema initialisation: the
// tables and the indexes come from migrations only.
var errSchemaFromMigrations = errors.New("events: the schema is created by migrations (events.Migrate), not by watermill")

// SchemaInitializingQueries refuses; see errSchemaFromMigrations.
func (a schemaAdapter) SchemaInitializingQueries(wsql.SchemaInitializingQueriesParams) ([]wsql.Query, error) {
	return nil, errSchemaFromMigrations
}

// SubscribeIsolationLevel is the default: mattn/go-sqlite3 ignores
// isolation levels. What makes subscribing safe is _txlock=immediate: the
// subscriber's transaction holds the write lock, so no append can commit
// between its read and its ack, and positions commit in order.
func (a schemaAdapter) SubscribeIsolationLevel() sql.IsolationLevel {
	return sql.LevelDefault
}
