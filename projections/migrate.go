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
