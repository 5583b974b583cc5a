package eventstest

import (
	"database/sql"
	"fmt"
	"testing"
)

// Column reads every row of rows, whatever its shape (an EXPLAIN's, a
// plan's), and returns column i of each as text, in order; a negative
// i counts from the last column (-1 is the last). It closes rows and
// fails t on any error.
func Column(t testing.TB, rows *sql.Rows, i int) []string {
	t.Helper()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	if i < 0 {
		i += len(cols)
	}
	if i < 0 || i >= len(cols) {
		t.Fatalf("column %d of %d", i, len(cols))
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for k := range vals {
			ptrs[k] = &vals[k]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if b, ok := vals[i].([]byte); ok {
			out = append(out, string(b))
		} else {
			out = append(out, fmt.Sprint(vals[i]))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
