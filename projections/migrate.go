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

// Migrate creates or upgrades the view tables in db.
func Migrate(ctx context.Context, db *sql.DB) error {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	if err := events.Migrate(ctx, db, "projections", sub); err != nil {
		return fmt.Errorf("migrate views: %w", err)
	}
	return nil
}

// viewTables are the tables a rebuild empties and refills, in the order a
// comparison reports them, each with the columns that order its rows.
var viewTables = []struct{ name, orderBy string }{
	{"nodes", "name"},
	{"node_timeline", "position, seq"},
	{"fleet_health", "name"},
	{"pods", "namespace, name"},
	{"configmaps", "namespace, name"},
	{"device_bindings", "name"},
	{"ip_pools", "pool"},
	{"ip_allocations", "pool, address"},
	{"kubelet_targets", "name"},
}
