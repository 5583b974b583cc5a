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
// engine keeps it. Migrations are each engine's own by nature — each
// engine's history of files, and on SQLite the upgrades of rows an older
// herd wrote — so they run on the views' database/sql pool (viewDB)
// rather than behind the views' store port.
func Migrate(ctx context.Context, log events.Log) error {
	views := newViewDB(log)
	if views.d.Engine() == events.EnginePostgres {
		if err := events.MigratePostgres(ctx, views.db, "projections", PostgresMigrations()); err != nil {
			return fmt.Errorf("migrate views: %w", err)
		}
	} else if err := migrate(ctx, views.db); err != nil {
		return err
	}
	return fillIPPoolsFree(ctx, views)
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
