package viewstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"herd/events"
)

// View describes a view over the described tables once, for both
// engines: its name and its query, in which what each engine spells its
// own way (a byte string's literal) is asked of the engine's dialect.
// DB.Ensure makes it after the tables, and makes it again where the
// database holds another query under its name.
type View struct {
	Name string
	// Select is the view's query in dialect d, without a ';'.
	Select func(d events.Dialect) string
}

// Check says what is wrong with w, naming it, or nil when each engine's
// statement can be made from it.
func (w View) Check() error {
	if !identifier.MatchString(w.Name) {
		return fmt.Errorf("described view %q: the name is not a lower-case identifier", w.Name)
	}
	if w.Select == nil {
		return fmt.Errorf("view %s: no query", w.Name)
	}
	var errs []error
	for _, e := range []events.Engine{events.EngineSQLite, events.EnginePostgres} {
		switch q := w.Select(e.Dialect()); {
		case strings.TrimSpace(q) == "":
			errs = append(errs, fmt.Errorf("view %s: the query on %s is empty", w.Name, e))
		case strings.Contains(q, ";"):
			errs = append(errs, fmt.Errorf("view %s: the query on %s holds a ';'", w.Name, e))
		}
	}
	return errors.Join(errs...)
}

// CreateSQL is the statement that makes w on engine e. It is refused, as
// Check refuses it, when w is not a view either engine can make.
func (w View) CreateSQL(e events.Engine) (string, error) {
	if err := w.Check(); err != nil {
		return "", err
	}
	return "CREATE VIEW " + w.Name + " AS\n" + w.Select(e.Dialect()), nil
}

// ensureView makes w where the database lacks it, and makes it again
// where the view of its name has another query; a view with its query
// is left as it is, so that every start may run it without touching the
// catalog (PostgreSQL would lock the view for a replacement). A table
// or anything else of its name is refused.
func ensureView(ctx context.Context, tx *sql.Tx, e events.Engine, w View) error {
	create, err := w.CreateSQL(e)
	if err != nil {
		return err
	}
	kind, same, err := viewIs(ctx, tx, e, w, create)
	if err != nil {
		return err
	}
	switch {
	case kind == "":
	case kind != "view":
		return fmt.Errorf("%s is %s in the database, not a view", w.Name, withArticle(kind))
	case same:
		return nil
	default:
		if _, err := tx.ExecContext(ctx, "DROP VIEW "+w.Name); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, create)
	return err
}

// viewIs says what the database holds under w's name ("view", "table",
// another kind, or "" for nothing) and, for a view, whether its query is
// the one create makes: on SQLite the statement the schema keeps, as it
// was written; on PostgreSQL the query as the catalog gives it back,
// compared with create's given back from a temporary view, as the
// catalog rewrites a query in its own words.
func viewIs(ctx context.Context, tx *sql.Tx, e events.Engine, w View, create string) (kind string, same bool, err error) {
	if e != events.EnginePostgres {
		var stmt sql.NullString
		err = tx.QueryRowContext(ctx, `SELECT type, sql FROM sqlite_schema WHERE name = ?`, w.Name).Scan(&kind, &stmt)
		if errors.Is(err, sql.ErrNoRows) {
			return "", false, nil
		}
		return kind, err == nil && stmt.String == create, err
	}
	var def sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT CASE c.relkind WHEN 'v' THEN 'view' WHEN 'r' THEN 'table' WHEN 'p' THEN 'table'
    WHEN 'i' THEN 'index' WHEN 'I' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 'm' THEN 'materialized view'
    WHEN 'f' THEN 'foreign table' WHEN 'c' THEN 'type' ELSE c.relkind::text END,
  CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relname = $1`, w.Name).Scan(&kind, &def)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil || kind != "view" {
		return kind, false, err
	}
	const described = "pg_temp.herd_described_view"
	if _, err := tx.ExecContext(ctx, "CREATE TEMPORARY VIEW "+described+" AS\n"+w.Select(e.Dialect())); err != nil {
		return kind, false, fmt.Errorf("the described query: %w", err)
	}
	var want string
	if err := tx.QueryRowContext(ctx, `SELECT pg_get_viewdef('`+described+`'::regclass)`).Scan(&want); err != nil {
		return kind, false, err
	}
	if _, err := tx.ExecContext(ctx, "DROP VIEW "+described); err != nil {
		return kind, false, err
	}
	return kind, def.String == want, nil
}

// withArticle is a kind of schema object with its indefinite article.
func withArticle(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
