package projections

import (
	"context"
	"fmt"
	"os"

	"herd/events"
	"herd/projections/viewstore"
)

// Difference is the first place where a rebuilt view differs from the live
// one (viewstore.Difference).
type Difference = viewstore.Difference

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
	if err := viewstore.NewDB(live.Log()).CopyInto(ctx, scratchPath); err != nil {
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
	views := viewstore.NewDB(scratch.Log())
	for _, t := range allViewTables() {
		if err := views.KeepLive(ctx, t.name); err != nil {
			return nil, RebuildStats{}, fmt.Errorf("verify: keep live %s: %w", t.name, err)
		}
	}
	stats, err := Rebuild(ctx, scratch.Log(), opts)
	if err != nil {
		return nil, stats, err
	}
	for _, t := range allViewTables() {
		d, err := firstDifference(ctx, views, t.name, compared(t.name, events.EngineSQLite, "live_"+t.name),
			compared(t.name, events.EngineSQLite, t.name), t.orderBy)
		if err != nil || d != nil {
			return d, stats, err
		}
	}
	return nil, stats, nil
}

// comparedAs are the view tables whose rows verify does not compare as
// they are stored, by name: each the query of what is compared in a copy
// of the table on an engine. The node timeline's are its entries, so
// that the rows an older herd wrote, a row an entry, equal a rebuild's,
// a row an event (viewstore.Timeline).
var comparedAs = map[string]func(events.Engine, string) string{
	"node_timeline": viewstore.TimelineEntriesSQL,
}

// compared is what verify compares of table, a copy of the view table
// named name on engine: table itself, or the rows of comparedAs' query.
func compared(name string, engine events.Engine, table string) string {
	if as, ok := comparedAs[name]; ok {
		return "(" + as(engine, table) + ") AS compared_" + name
	}
	return table
}

// firstDifference compares the tables live and rebuilt, copies of the
// view table named table, row by row in key order
// (viewstore.FirstDifference).
func firstDifference(ctx context.Context, q events.Querier, table, live, rebuilt, orderBy string) (*Difference, error) {
	d, err := viewstore.FirstDifference(ctx, q, table, live, rebuilt, orderBy)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return d, nil
}

func removeDB(path string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
}
