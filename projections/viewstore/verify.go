package viewstore

import (
	"context"
	"fmt"
	"strings"

	"herd/events"
)

// The statements of replay --verify: a copy of SQLite's file and of its
// live view tables, PostgreSQL's snapshot and scratch tables, and the
// comparison of a live table with its rebuilt copy, row by row.

// Difference is the first place where a rebuilt view differs from the live
// one.
type Difference struct {
	// Table is the view table.
	Table string
	// Key identifies the row (its ordering columns).
	Key string
	// Live and Rebuilt are the row as stored and as rebuilt, or "(missing)".
	Live, Rebuilt string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s row %s differs:\n  live:    %s\n  rebuilt: %s", d.Table, d.Key, d.Live, d.Rebuilt)
}

// CopyInto writes a consistent copy of v's SQLite database, log and views,
// to the file path (safe while herd serves).
func (v *DB) CopyInto(ctx context.Context, path string) error {
	_, err := v.db.ExecContext(ctx, `VACUUM INTO ?`, path)
	return err
}

// KeepLive copies the view table named table, as it is, into a new table
// live_<table> beside it, for FirstDifference to compare with the table
// once rebuilt.
func (v *DB) KeepLive(ctx context.Context, table string) error {
	_, err := v.db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE live_%s AS SELECT * FROM %s", table, table))
	return err
}

// Scratch is where a verify in place on PostgreSQL finds a view table's
// live rows and its rebuilt ones (ScratchTables).
type Scratch struct{ schema string }

// Live is the live table named table.
func (s Scratch) Live(table string) string { return quoteIdent(s.schema) + "." + table }

// Rebuilt is the scratch table the rebuild wrote in place of table.
func (s Scratch) Rebuilt(table string) string { return "pg_temp." + table }

// ScratchTables makes tx, a PostgreSQL transaction that has run nothing
// yet, see one snapshot of the log and every view (REPEATABLE READ), and
// creates in it a temporary table shaped like each of tables, under the
// same name, which the transaction's statements find before the live one
// and which goes with the transaction.
func ScratchTables(ctx context.Context, tx *events.ViewTx, tables []string) (Scratch, error) {
	if _, err := tx.ExecContext(ctx, `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`); err != nil {
		return Scratch{}, err
	}
	var s Scratch
	if err := tx.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&s.schema); err != nil {
		return Scratch{}, err
	}
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`CREATE TEMPORARY TABLE %[2]s (LIKE %[1]s.%[2]s INCLUDING ALL) ON COMMIT DROP`,
			quoteIdent(s.schema), t)); err != nil {
			return Scratch{}, fmt.Errorf("scratch %s: %w", t, err)
		}
	}
	return s, nil
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string {
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, s[i])
	}
	return string(append(out, '"'))
}

// FirstDifference compares the tables live and rebuilt, copies of the
// view table named table, row by row in key order (orderBy, its key's
// columns), using SQL's own value comparison (BLOBs byte for byte): nil
// when they hold the same rows.
func FirstDifference(ctx context.Context, q Querier, table, live, rebuilt, orderBy string) (*Difference, error) {
	query := fmt.Sprintf(`SELECT 'live', * FROM (SELECT * FROM %[1]s EXCEPT SELECT * FROM %[2]s) l
UNION ALL SELECT 'rebuilt', * FROM (SELECT * FROM %[2]s EXCEPT SELECT * FROM %[1]s) r
ORDER BY %[3]s LIMIT 2`, live, rebuilt, orderBy)
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("compare %s: %w", table, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	keys := strings.Split(orderBy, ", ")
	var d *Difference
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("compare %s: %w", table, err)
		}
		key, row := describeRow(cols[1:], vals[1:], keys)
		if d == nil {
			d = &Difference{Table: table, Key: key, Live: "(missing)", Rebuilt: "(missing)"}
		} else if d.Key != key {
			break
		}
		if vals[0] == "live" || fmt.Sprint(vals[0]) == "live" {
			d.Live = row
		} else {
			d.Rebuilt = row
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("compare %s: %w", table, err)
	}
	return d, nil
}

func describeRow(cols []string, vals []any, keys []string) (key, row string) {
	var k, r []string
	for i, c := range cols {
		v := vals[i]
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		s := fmt.Sprintf("%s=%v", c, v)
		r = append(r, s)
		for _, key := range keys {
			if key == c {
				k = append(k, s)
			}
		}
	}
	return strings.Join(k, ","), strings.Join(r, " ")
}
