package events

import (
	"context"
	"fmt"
	"strings"
)

// QueryPlan is the plan l's engine makes for the query Query runs for f:
// SQLite's EXPLAIN QUERY PLAN details, or PostgreSQL's EXPLAIN, one step
// a line.
func QueryPlan(ctx context.Context, l Log, f Filter) (string, error) {
	return queryPlan(ctx, l, f, false)
}

// QueryPlanAnalyzed is QueryPlan, on PostgreSQL with the query run and
// each step's rows, loops, buffers and time (EXPLAIN ANALYZE): what a
// benchmark logs to show where a query's time goes. SQLite's plan has no
// figures.
func QueryPlanAnalyzed(ctx context.Context, l Log, f Filter) (string, error) {
	return queryPlan(ctx, l, f, true)
}

func queryPlan(ctx context.Context, l Log, f Filter, analyze bool) (string, error) {
	var (
		q, explain string
		d          Dialect
		querier    Querier
	)
	switch l := l.(type) {
	case sqliteLog:
		d, querier, explain = sqliteDialect, l.s.db, "EXPLAIN QUERY PLAN "
	case *Postgres:
		d, querier, explain = pgDialect, l.db, "EXPLAIN "
		if analyze {
			explain = "EXPLAIN (ANALYZE, BUFFERS) "
		}
	default:
		return "", fmt.Errorf("no plan for a %T", l)
	}
	q, args, err := f.sql(d)
	if err != nil {
		return "", err
	}
	if d.numbered {
		q = rebind(q)
	}
	rows, err := querier.QueryContext(ctx, explain+q, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		// The step's words are the last column on both engines.
		fmt.Fprintf(&b, "%s\n", vals[len(vals)-1])
	}
	return b.String(), rows.Err()
}

// Analyze has PostgreSQL gather the events table's statistics, as its
// autovacuum does; SQLite plans without them.
func Analyze(ctx context.Context, l Log) error {
	if p, ok := l.(*Postgres); ok {
		_, err := p.db.ExecContext(ctx, "ANALYZE events")
		return err
	}
	return nil
}
