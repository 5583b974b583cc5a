package projections

import (
	"context"
	"fmt"
	"os"
	"strings"

	"herd/events"
)

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

// Verify copies the live database to scratchPath (a consistent snapshot,
// safe while herd serves), rebuilds every view in the copy and compares the
// rebuilt rows with the live ones. It returns nil when they are equal byte
// for byte, else the first difference. The scratch file is removed after.
//
// It first checks that the scratch copy's filesystem has room for it
// (verifyRoom), and removes the copy, its journal and its WAL however it
// ends: a verify that failed for want of room once left a half-written
// copy behind and filled the disk.
func Verify(ctx context.Context, live *events.Store, scratchPath string, cfg events.Config, opts RebuildOptions) (*Difference, RebuildStats, error) {
	if err := verifyRoom(ctx, live, scratchPath); err != nil {
		return nil, RebuildStats{}, err
	}
	removeDB(scratchPath)
	defer removeDB(scratchPath)
	if _, err := live.DB().ExecContext(ctx, `VACUUM INTO ?`, scratchPath); err != nil {
		return nil, RebuildStats{}, fmt.Errorf("verify: snapshot to %s: %w", scratchPath, err)
	}
	cfg.Path = scratchPath
	scratch, err := events.Open(ctx, cfg, nil)
	if err != nil {
		return nil, RebuildStats{}, fmt.Errorf("verify: open scratch: %w", err)
	}
	// The scratch copy is removed right after; closing it can only fail
	// on a file about to be deleted.
	defer func() { _ = scratch.Close() }()
	if err := Migrate(ctx, scratch.Log()); err != nil {
		return nil, RebuildStats{}, err
	}
	for _, t := range allViewTables() {
		if _, err := scratch.DB().ExecContext(ctx, fmt.Sprintf("CREATE TABLE live_%s AS SELECT * FROM %s", t.name, t.name)); err != nil {
			return nil, RebuildStats{}, fmt.Errorf("verify: keep live %s: %w", t.name, err)
		}
	}
	stats, err := Rebuild(ctx, scratch.Log(), opts)
	if err != nil {
		return nil, stats, err
	}
	for _, t := range allViewTables() {
		d, err := firstDifference(ctx, scratch.DB(), t.name, t.orderBy)
		if err != nil || d != nil {
			return d, stats, err
		}
	}
	return nil, stats, nil
}

// firstDifference compares live_<table> with <table> row by row in key
// order, using SQL's own value comparison (BLOBs byte for byte).
func firstDifference(ctx context.Context, db events.Querier, table, orderBy string) (*Difference, error) {
	return firstDifferenceOf(ctx, db, table, "live_"+table, table, orderBy)
}

// firstDifferenceOf compares the tables live and rebuilt, copies of the
// view table named table, row by row in key order.
func firstDifferenceOf(ctx context.Context, db events.Querier, table, live, rebuilt, orderBy string) (*Difference, error) {
	q := fmt.Sprintf(`SELECT 'live', * FROM (SELECT * FROM %[1]s EXCEPT SELECT * FROM %[2]s) l
UNION ALL SELECT 'rebuilt', * FROM (SELECT * FROM %[2]s EXCEPT SELECT * FROM %[1]s) r
ORDER BY %[3]s LIMIT 2`, live, rebuilt, orderBy)
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("verify: compare %s: %w", table, err)
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
			return nil, fmt.Errorf("verify: compare %s: %w", table, err)
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
	return d, rows.Err()
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

func removeDB(path string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
}
