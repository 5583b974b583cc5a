package projections

import (
	"context"
	"fmt"
	"time"

	"herd/events"
	"herd/projections/viewstore"
)

// VerifyInPlace rebuilds every view from log and compares the rebuilt
// rows with the live ones, without a copy of the database: in one
// transaction at one snapshot of the log and its views (REPEATABLE
// READ), the rebuild writes into temporary tables of the same names,
// which the transaction's statements find before the live ones, and the
// transaction is rolled back at the end. The live views are only read, so
// herd's replicas keep writing while it runs. It is how replay --verify
// works on PostgreSQL, where there is no file to copy.
func VerifyInPlace(ctx context.Context, log events.Log, opts RebuildOptions) (*Difference, RebuildStats, error) {
	start := time.Now() // wall time: how long the verify took, for the operator
	ltx, err := log.Begin(ctx)
	if err != nil {
		return nil, RebuildStats{}, fmt.Errorf("verify: begin: %w", err)
	}
	defer func() { _ = ltx.Rollback() }()
	// The log's own transaction tells its engine; on SQLite it is rolled
	// back before anything was written in it.
	if engine := ltx.Engine(); engine != events.EnginePostgres {
		return nil, RebuildStats{}, fmt.Errorf("verify in place: the log is on %s; verify a copy of its file (Verify)", engine)
	}
	// A snapshot of the log and every view at once, and scratch tables
	// shaped like the live ones that the rebuild writes instead, are how
	// this engine verifies in place (viewstore.ScratchTables), and no
	// other engine runs them (SQLite verifies a copy of its file).
	tx := newViewTx(ltx)
	var tables []string
	for _, t := range allViewTables() {
		tables = append(tables, t.name)
	}
	tables = append(tables, "projection_checkpoints")
	scratch, err := viewstore.ScratchTables(ctx, tx, tables)
	if err != nil {
		return nil, RebuildStats{}, fmt.Errorf("verify: %w", err)
	}
	stats, err := rebuildIn(ctx, log, ltx, opts, false)
	if err != nil {
		return nil, stats, err
	}
	for _, t := range allViewTables() {
		d, err := firstDifference(ctx, tx, t.name, compared(t.name, events.EnginePostgres, scratch.Live(t.name)),
			compared(t.name, events.EnginePostgres, scratch.Rebuilt(t.name)), t.orderBy)
		if err != nil || d != nil {
			return d, stats, err
		}
	}
	stats.Took = time.Since(start)
	return nil, stats, nil
}
