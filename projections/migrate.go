package projections

import (
	"context"
	"embed"
	"io/fs"

	"herd/events"
	"herd/projections/viewstore"
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
// herd wrote — and run on the views' pool (viewstore.DB's Migrate, and
// the upgrades' statements in viewstore's SQLite upgrades).
func Migrate(ctx context.Context, log events.Log) error {
	views := viewstore.NewDB(log)
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the embedded directory exists: a build error otherwise
	}
	if err := views.Migrate(ctx, sub, PostgresMigrations()); err != nil {
		return err
	}
	if views.Dialect().Engine() != events.EnginePostgres {
		// A PostgreSQL database is born in the present shape.
		if err := storeDerivedLabels(ctx, views); err != nil {
			return err
		}
		if err := splitNodeRows(ctx, views); err != nil {
			return err
		}
		if err := leasesRenewedAt(ctx, views); err != nil {
			return err
		}
	}
	return fillIPPoolsFree(ctx, views)
}
