package viewstore

import (
	"context"
	"errors"
	"fmt"

	"herd/events"
)

// The reading and scanning both engines' implementations share: their
// statements differ, what comes back does not.

// getData runs query, which selects one row's data, or none.
func getData(ctx context.Context, q Querier, table string, query string, args ...any) ([]byte, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", table, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", table, err)
		}
		return nil, ErrNoRow
	}
	var data []byte
	if err := rows.Scan(&data); err != nil {
		return nil, fmt.Errorf("%s: %w", table, err)
	}
	return data, rows.Err()
}

// allData runs query, which selects rows' data, and reads every row's.
func allData(ctx context.Context, q Querier, table, query string, args ...any) ([][]byte, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", table, err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("%s: %w", table, err)
		}
		out = append(out, data)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", table, err)
	}
	return out, nil
}

// dataAtHead runs query, an events.Dialect.AtHead statement, and reads
// its rows' data and the head.
func dataAtHead(ctx context.Context, q Querier, query string, args ...any) ([][]byte, int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("rows at head: %w", err)
	}
	return events.ScanDataAtHead(rows)
}

// exec runs a write through x.
func exec(ctx context.Context, x Execer, table, query string, args ...any) error {
	if _, err := x.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	return nil
}

// errNoControllers refuses Controlled without a controller to look for,
// which no statement can say (IN ()).
var errNoControllers = errors.New("no controllers to look for")

// controlledFrom is what Controlled joins to the log's head: the live
// rows of a namespace whose controller is one of n.
func controlledFrom(table string, n int) string {
	return table + " r ON r.deleted = 0 AND r.namespace = ? AND r.controller IN (" + markers(n) +
		") ORDER BY r.namespace, r.name"
}

// listFrom is what List joins to the log's head: the live rows of one
// namespace, or of all when the argument (given twice) is "".
func listFrom(table string) string {
	return table + " r ON r.deleted = 0 AND (? = '' OR r.namespace = ?) ORDER BY r.namespace, r.name"
}

// inSQL reads the live rows of one namespace.
func inSQL(table string) string {
	return "SELECT data FROM " + table + " WHERE namespace = ? AND deleted = 0 ORDER BY name"
}

// allNames runs query, which selects one text column (node names), and
// reads every row's, in the order the query gives; what names the list
// in errors.
func allNames(ctx context.Context, q Querier, what, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
