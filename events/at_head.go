package events

import (
	"context"
	"database/sql"
	"fmt"
)

// DataAtHead reads the data column of the view rows that rowsFrom selects
// together with the log head, in one statement, so that the rows are as
// the log left them at that head: a list and its resourceVersion agree.
// rowsFrom is what follows LEFT JOIN: a view table or subquery under the
// alias r, with its join condition if any, and its ORDER BY (r.data is
// read), such as "nodes r ON r.deleted = 0 ORDER BY r.name". The head
// comes back even when no row matches.
func (s *Store) DataAtHead(ctx context.Context, q Querier, rowsFrom string, args ...any) ([][]byte, int64, error) {
	rows, err := q.QueryContext(ctx, sqliteDialect.AtHead(rowsFrom), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("rows at head: %w", err)
	}
	return ScanDataAtHead(rows)
}

// ScanDataAtHead reads rows of (data, head), as a statement that joins
// view rows to the log's head selects them on either engine, and closes
// them: the data of every row (none when the join found none) and the
// head.
func ScanDataAtHead(rows *sql.Rows) ([][]byte, int64, error) {
	defer rows.Close()
	var (
		out  [][]byte
		head int64
	)
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data, &head); err != nil {
			return nil, 0, fmt.Errorf("rows at head: %w", err)
		}
		if data != nil {
			out = append(out, data)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("rows at head: %w", err)
	}
	return out, head, nil
}
