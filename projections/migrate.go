package projections

import (
	"context"
	"embed"
	"io/fs"
	"maps"
	"slices"

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

// described are the tables made from their descriptions rather than
// from migration files, by name: the object model's kinds' tables, each
// described by its kind (describeJSONRows) as the package's variables
// are made, before anything migrates.
var described = map[string]viewstore.Table{}

// describeTable keeps t among the described tables, in place of any
// description of its name before (a jsonRows given a controller after),
// and returns the schema its statements are made from.
func describeTable(t viewstore.Table) viewstore.Schema {
	described[t.Name] = t
	return t.Schema()
}

// describedTables are the described tables in name order.
func describedTables() []viewstore.Table {
	out := make([]viewstore.Table, 0, len(described))
	for _, name := range slices.Sorted(maps.Keys(described)) {
		out = append(out, described[name])
	}
	return out
}

// Migrate creates or upgrades the view tables beside log, on whichever
// engine keeps it, on the views' pool: first each engine's history of
// files (viewstore.DB's Migrate) for the tables not described once for
// both engines, then the described tables from their descriptions
// (viewstore.DB's Ensure: the object model's kinds'), then on SQLite the
// upgrades of rows an older herd wrote (their statements in viewstore's
// SQLite upgrades).
func Migrate(ctx context.Context, log events.Log) error {
	views := viewstore.NewDB(log)
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the embedded directory exists: a build error otherwise
	}
	if err := views.Migrate(ctx, sub, PostgresMigrations()); err != nil {
		return err
	}
	if err := views.Ensure(ctx, describedTables()); err != nil {
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
