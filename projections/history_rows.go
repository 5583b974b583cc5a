package projections

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"herd/events"
)

// viewRows reads the rows a view's List or Rows method selects, with the
// log head: rowsFrom is what the store's DataAtHead joins to the head (a
// table or subquery under the alias r, and its order). Rows and head come
// from one statement, so they are consistent with each other.
func viewRows[T any](ctx context.Context, store *events.Store, db *sql.DB, what string, decode func([]byte) (T, error), rowsFrom string, args ...any) ([]T, int64, error) {
	data, head, err := store.DataAtHead(ctx, db, rowsFrom, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("%s rows: %w", what, err)
	}
	out := make([]T, 0, len(data))
	for _, d := range data {
		v, err := decode(d)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, head, nil
}

// namedRowsFrom selects up to a limit of a cluster-wide view's rows whose
// name sorts after a name.
func namedRowsFrom(table string) string {
	return `(SELECT name, data FROM ` + table + ` WHERE name > ? ORDER BY name LIMIT ?) r ORDER BY r.name`
}

// namedRowsArgs are namedRowsFrom's arguments for the rows after name
// ("" for all) and limit (0 or less for no limit).
func namedRowsArgs(after string, limit int) []any {
	return []any{after, sqlLimit(limit)}
}

// sqlLimit is limit as SQLite's LIMIT takes it: 0 or less means none.
func sqlLimit(limit int) int {
	if limit <= 0 {
		return -1 // SQLite: no limit
	}
	return limit
}

// namespacedRowsFrom selects up to a limit of a namespaced view's rows
// whose (namespace, name) sort after a key's.
func namespacedRowsFrom(table string) string {
	return `(SELECT namespace, name, data FROM ` + table + ` WHERE (namespace, name) > (?, ?) ORDER BY namespace, name LIMIT ?) r
ORDER BY r.namespace, r.name`
}

// namespacedRowsArgs are namespacedRowsFrom's arguments for the rows after
// key ("namespace/name"; "" for all) and limit (0 or less for no limit).
// Namespaces and names are DNS labels and subdomains, with no "/" in
// either, so "namespace/name" orders as (namespace, name) does.
func namespacedRowsArgs(after string, limit int) []any {
	ns, name, _ := strings.Cut(after, "/")
	return []any{ns, name, sqlLimit(limit)}
}
