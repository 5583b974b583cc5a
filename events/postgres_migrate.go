package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// migrationLock is the advisory lock every migration takes, so that
// replicas starting at once apply each file once, one after another.
const migrationLock = `SELECT pg_advisory_xact_lock(hashtext('herd schema_migrations'))`

// MigratePostgres is Migrate for PostgreSQL: the files of fsys in version
// order, each once and in its own transaction, checksummed, a file
// changed after it was applied refused.
func MigratePostgres(ctx context.Context, db *sql.DB, component string, fsys fs.FS) error {
	if component == "" {
		return errors.New("migrate: component is empty")
	}
	migrations, err := readMigrations(fsys)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	for _, m := range migrations {
		if err := applyPostgresMigration(ctx, db, component, m); err != nil {
			return fmt.Errorf("migrate %s %s: %w", component, m.name, err)
		}
	}
	return nil
}

func applyPostgresMigration(ctx context.Context, db *sql.DB, component string, m migration) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreTxDone(tx.Rollback()))
		}
	}()
	if _, err = tx.ExecContext(ctx, migrationLock); err != nil {
		return err
	}
	if _, err = tx.ExecContext(ctx, createPostgresMigrationsTable); err != nil {
		return err
	}
	var applied string
	err = tx.QueryRowContext(ctx, `SELECT checksum FROM schema_migrations WHERE component = $1 AND version = $2`,
		component, m.version).Scan(&applied)
	switch {
	case err == nil && applied == m.checksum:
		return tx.Rollback()
	case err == nil:
		return errors.New("file changed after it was applied; add a new migration instead of editing this one")
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	if _, err = tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (component, version, name, checksum) VALUES ($1, $2, $3, $4)`,
		component, m.version, m.name, m.checksum); err != nil {
		return err
	}
	return tx.Commit()
}
