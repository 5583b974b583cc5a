package events

import (
	"context"
	"database/sql"
	"io/fs"
)

const createPostgresMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    component  text        NOT NULL,
    version    bigint      NOT NULL,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (component, version)
)`

var postgresMigrationStatements = migrationStatements{
	// An advisory lock held to the transaction's end: replicas starting
	// at once apply each file once, one after another.
	lock:     `SELECT pg_advisory_xact_lock(hashtext('herd schema_migrations'))`,
	create:   createPostgresMigrationsTable,
	checksum: `SELECT checksum FROM schema_migrations WHERE component = $1 AND version = $2`,
	record:   `INSERT INTO schema_migrations (component, version, name, checksum) VALUES ($1, $2, $3, $4)`,
}

// MigratePostgres is Migrate for PostgreSQL: the files of fsys in version
// order, each once and in its own transaction, checksummed, a file
// changed after it was applied refused.
func MigratePostgres(ctx context.Context, db *sql.DB, component string, fsys fs.FS) error {
	return migrate(ctx, db, component, fsys, postgresMigrationStatements)
}
