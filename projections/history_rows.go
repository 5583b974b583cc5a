package projections

import (
	"context"
	"fmt"

	"herd/events"
)

// viewRows reads the rows a view's List or Rows method selects, with the
// log head: rowsFrom is what the store's DataAtHead joins to the head (a
// table or subquery under the alias r, and its order). Rows and head come
// from one statement, so they are consistent with each other.
func viewRows[T any](ctx context.Context, db *viewDB, what string, decode func([]byte) (T, error), rowsFrom string, args ...any) ([]T, int64, error) {
	data, head, err := dataAtHead(ctx, db, rowsFrom, args...)
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

// dataAtHead reads the data column of the view rows that rowsFrom selects
// together with the log head, in one statement, so that the rows are as
// the log left them at that head: a list and its resourceVersion agree.
// rowsFrom is what follows LEFT JOIN: a view table or subquery under the
// alias r, with its join condition if any, and its ORDER BY (r.data is
// read), such as "nodes r ON r.deleted = 0 ORDER BY r.name". The head
// comes back even when no row matches.
func dataAtHead(ctx context.Context, db *viewDB, rowsFrom string, args ...any) ([][]byte, int64, error) {
	rows, err := db.QueryContext(ctx, db.d.AtHead(rowsFrom), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("rows at head: %w", err)
	}
	return events.ScanDataAtHead(rows)
}

// namedRowsFrom selects up to a limit of a cluster-wide view's rows whose
// name sorts after a name.
func namedRowsFrom(table string) string {
	return `(SELECT name, data FROM ` + table + ` WHERE name > ? ORDER BY name LIMIT ?) r ON true ORDER BY r.name`
}

// namedRowsArgs are namedRowsFrom's arguments for the rows after name
// ("" for all) and limit (0 or less for no limit).
func namedRowsArgs(after string, limit int) []any {
	return []any{after, events.LimitOf(limit)}
}
