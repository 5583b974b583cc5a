package projections

import (
	"context"
	"fmt"
	"time"

	"herd/events"
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
	// The statements below are PostgreSQL's alone and stay here, through
	// the transaction's database/sql handle (newViewTx): a snapshot of the
	// log and every view at once, and scratch tables shaped like the live
	// ones that the rebuild writes instead, are how this engine verifies
	// in place, and no other engine runs them (SQLite verifies a copy of
	// its file).
	tx := newViewTx(ltx)
	if _, err := tx.ExecContext(ctx, `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`); err != nil {
		return nil, RebuildStats{}, fmt.Errorf("verify: %w", err)
	}
	var schema string
	if err := tx.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return nil, RebuildStats{}, fmt.Errorf("verify: %w", err)
	}
	tables := append(allViewTables(), viewTable{name: "projection_checkpoints", orderBy: "projection"})
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`CREATE TEMPORARY TABLE %[2]s (LIKE %[1]s.%[2]s INCLUDING ALL) ON COMMIT DROP`,
			quoteIdent(schema), t.name)); err != nil {
			return nil, RebuildStats{}, fmt.Errorf("verify: scratch %s: %w", t.name, err)
		}
	}
	stats, err := rebuildIn(ctx, log, ltx, opts, false)
	if err != nil {
		return nil, stats, err
	}
	for _, t := range allViewTables() {
		d, err := firstDifferenceOf(ctx, tx, t.name, quoteIdent(schema)+"."+t.name, "pg_temp."+t.name, t.orderBy)
		if err != nil || d != nil {
			return d, stats, err
		}
	}
	stats.Took = time.Since(start)
	return nil, stats, nil
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
