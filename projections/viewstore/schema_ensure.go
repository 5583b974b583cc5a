package viewstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"herd/events"
)

// Ensure makes the views' described tables and views what their
// descriptions say, in one transaction under the migrations' lock
// (events.MigrateTx): a table the database lacks is created with its
// indexes; one an older herd made gets the columns described since (each
// with its default, then its Fill) and the indexes it lacks; then each
// view is made, or made again where its query is not the described one.
// A table whose columns the description does not all name, or a column
// to add with neither default nor NULL, is refused, naming it, and
// nothing is changed. Each step is a no-op where its work is done, so
// that every start runs it; it is no file of the history, and no version
// is recorded for it. The retired files, those of the engine's history
// whose work the descriptions now do, are then recorded as applied under
// the component "projections" where they are not already
// (events.RecordRetired), so that a herd from before them opens the
// database as one it migrated itself.
func (v *DB) Ensure(ctx context.Context, tables []Table, views []View, retired []events.RetiredMigration) error {
	var errs []error
	for _, t := range tables {
		errs = append(errs, t.Check())
	}
	for _, w := range views {
		errs = append(errs, w.Check())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("migrate views: %w", err)
	}
	e := v.d.Engine()
	err := events.MigrateTx(ctx, v.db, e, func(tx *sql.Tx) error {
		for _, t := range tables {
			if err := ensureTable(ctx, tx, e, t); err != nil {
				return fmt.Errorf("table %s: %w", t.Name, err)
			}
		}
		for _, w := range views {
			if err := ensureView(ctx, tx, e, w); err != nil {
				return fmt.Errorf("view %s: %w", w.Name, err)
			}
		}
		return events.RecordRetired(ctx, tx, e, "projections", retired)
	})
	if err != nil {
		return fmt.Errorf("migrate views: %w", err)
	}
	return nil
}

func ensureTable(ctx context.Context, tx *sql.Tx, e events.Engine, t Table) error {
	have, err := tableColumns(ctx, tx, e, t.Name)
	if err != nil {
		return err
	}
	create, err := t.CreateSQL(e)
	if err != nil {
		return err
	}
	if len(have) == 0 {
		for _, stmt := range create {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range have {
		if !slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Name == name }) {
			return fmt.Errorf("column %s is in the database but not in the table's description", name)
		}
	}
	for _, c := range t.Columns {
		if slices.Contains(have, c.Name) {
			continue
		}
		if !c.Null && c.Default == "" {
			return fmt.Errorf("column %s is missing, and without a default or NULL it cannot be added to the rows there", c.Name)
		}
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+t.Name+" ADD COLUMN "+c.definition(e)); err != nil {
			return fmt.Errorf("add column %s: %w", c.Name, err)
		}
		if fill := c.Fill.of(e); fill != "" {
			if _, err := tx.ExecContext(ctx, fill); err != nil {
				return fmt.Errorf("fill column %s: %w", c.Name, err)
			}
		}
	}
	// Only the indexes it lacks: PostgreSQL would lock the table even for
	// an index there already.
	indexes, err := tableIndexes(ctx, tx, e, t.Name)
	if err != nil {
		return err
	}
	for i, ix := range t.Indexes {
		if slices.Contains(indexes, ix.Name) {
			continue
		}
		if _, err := tx.ExecContext(ctx, create[1+i]); err != nil {
			return err
		}
	}
	return nil
}

// tableIndexes is the names of table's secondary indexes.
func tableIndexes(ctx context.Context, tx *sql.Tx, e events.Engine, table string) ([]string, error) {
	d := e.Dialect()
	rows, err := tx.QueryContext(ctx, d.Bind(d.TableIndexes()), table)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var names []string
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, rows.Err()
}

// tableColumns is the names of table's columns in order, none when the
// database has no such table.
func tableColumns(ctx context.Context, tx *sql.Tx, e events.Engine, table string) ([]string, error) {
	q := `SELECT name FROM pragma_table_info(?) ORDER BY cid`
	if e == events.EnginePostgres {
		q = `SELECT column_name FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`
	}
	rows, err := tx.QueryContext(ctx, q, table)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}
