package projections

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// viewRows reads the rows a view's Rows method selects: query must select
// a row's data and the log head (the head joined to the rows, so that an
// empty result still carries it), in key order. Rows and head come from
// one statement, so they are consistent with each other.
func viewRows[T any](ctx context.Context, db *sql.DB, what string, decode func([]byte) (T, error), query string, args ...any) ([]T, int64, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("%s rows: %w", what, err)
	}
	defer rows.Close()
	var (
		out  []T
		head int64
	)
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data, &head); err != nil {
			return nil, 0, fmt.Errorf("%s rows: %w", what, err)
		}
		if data == nil {
			continue
		}
		v, err := decode(data)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, head, rows.Err()
}

// namespacedRowsQuery selects up to a limit of a namespaced view's rows
// whose (namespace, name) sort after a key's, and the log head.
func namespacedRowsQuery(table string) string {
	return `SELECT r.data, h.head FROM (SELECT COALESCE(MAX(position), 0) AS head FROM events) h
LEFT JOIN (SELECT namespace, name, data FROM ` + table + ` WHERE (namespace, name) > (?, ?) ORDER BY namespace, name LIMIT ?) r
ORDER BY r.namespace, r.name`
}

// namespacedRowsArgs are namespacedRowsQuery's arguments for the rows after
// key ("namespace/name"; "" for all) and limit (0 or less for no limit).
// Namespaces and names are DNS labels and subdomains, with no "/" in
// either, so "namespace/name" orders as (namespace, name) does.
func namespacedRowsArgs(after string, limit int) []any {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	ns, name, _ := strings.Cut(after, "/")
	return []any{ns, name, limit}
}
