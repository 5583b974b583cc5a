package projections

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"herd/events"
)

//go:embed migrations/*.sql
var migrations embed.FS

//go:embed postgres_migrations/*.sql
var postgresMigrations embed.FS

// PostgresMigrations are the views' migrations for PostgreSQL, applied
// under the component "projections" as on SQLite. A database is born
// there in the views' present shape: none of SQLite's upgrades of older
// rows applies.
func PostgresMigrations() fs.FS {
	sub, err := fs.Sub(postgresMigrations, "postgres_migrations")
	if err != nil {
		panic(err) // the embedded directory exists: a build error otherwise
	}
	return sub
}

// Migrate creates or upgrades the view tables beside log, on whichever
// engine keeps it.
func Migrate(ctx context.Context, log events.Log) error {
	db, engine := events.SQLDB(log)
	if engine == events.EnginePostgres {
		if err := events.MigratePostgres(ctx, db, "projections", PostgresMigrations()); err != nil {
			return fmt.Errorf("migrate views: %w", err)
		}
	} else if err := migrate(ctx, db); err != nil {
		return err
	}
	return fillIPPoolsFree(ctx, newViewDB(log))
}

func migrate(ctx context.Context, db *sql.DB) error {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	if err := events.Migrate(ctx, db, "projections", sub); err != nil {
		return fmt.Errorf("migrate views: %w", err)
	}
	if err := storeDerivedLabels(ctx, db); err != nil {
		return err
	}
	if err := splitNodeRows(ctx, db); err != nil {
		return err
	}
	return leasesRenewedAt(ctx, db)
}
