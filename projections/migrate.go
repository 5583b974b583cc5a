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
// under the component "projections" as on SQLite. Only the tables whose
// statements are made from a viewSchema are there yet.
func PostgresMigrations() fs.FS {
	sub, err := fs.Sub(postgresMigrations, "postgres_migrations")
	if err != nil {
		panic(err) // the embedded directory exists: a build error otherwise
	}
	return sub
}

// Migrate creates or upgrades the view tables in the store's database.
func Migrate(ctx context.Context, store *events.Store) error {
	return migrate(ctx, store.DB())
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
