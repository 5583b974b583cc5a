package viewstore_test

import (
	"database/sql"
	"strings"
	"testing"

	"herd/events"
	"herd/projections/viewstore"
)

// marked is a view of widgets' names and data with mark appended to the
// data, as each engine spells a byte string.
func marked(name, mark string) viewstore.View {
	return viewstore.View{Name: name, Select: func(d events.Dialect) string {
		return `SELECT name, data || ` + d.Bytes([]byte(mark)) + ` AS data FROM widgets`
	}}
}

// TestEnsureMakesADescribedViewAndReplacesAChangedOne: a described view
// is made on each engine over a described table, its byte string spelled
// by the engine; made again it is left as it is, the catalog untouched;
// its query changed, it is made again and reads the new query; a view
// under a table's name is refused, naming it, and changes nothing; one
// under an index's name is refused, naming what it is.
func TestEnsureMakesADescribedViewAndReplacesAChangedOne(t *testing.T) {
	for _, open := range []func(*testing.T) engine{openSQLite, openPostgres} {
		e := open(t)
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			db, engine := events.SQLDB(e.log)
			views := viewstore.NewDBOn(db, engine.Dialect())
			widgets := []viewstore.Table{viewstore.ObjectTable("widgets", false)}
			if err := views.Ensure(ctx, widgets, []viewstore.View{marked("widget_data", "!")}, nil); err != nil {
				t.Fatal(err)
			}
			write(t, e.log, func(x *events.ViewTx) {
				if err := viewstore.New(widgets[0].Schema()).Upsert(ctx, x, obj("default", "a", false, 1)); err != nil {
					t.Fatal(err)
				}
			})
			read := func() string {
				t.Helper()
				var data []byte
				if err := db.QueryRowContext(ctx, `SELECT data FROM widget_data`).Scan(&data); err != nil {
					t.Fatal(err)
				}
				return string(data)
			}
			made := read()
			if !strings.HasSuffix(made, "!") {
				t.Fatalf("the view reads %q; want the data and !", made)
			}
			stamp := catalogStamp(t, db, engine)
			if err := views.Ensure(ctx, widgets, []viewstore.View{marked("widget_data", "!")}, nil); err != nil {
				t.Fatal(err)
			}
			if got := catalogStamp(t, db, engine); got != stamp {
				t.Errorf("Ensure of the view as it is changed the catalog: %s, then %s", stamp, got)
			}

			if err := views.Ensure(ctx, widgets, []viewstore.View{marked("widget_data", "?")}, nil); err != nil {
				t.Fatal(err)
			}
			if got, want := read(), strings.TrimSuffix(made, "!")+"?"; got != want {
				t.Errorf("the changed view reads %q; want %q", got, want)
			}

			stamp = catalogStamp(t, db, engine)
			err := views.Ensure(ctx, widgets, []viewstore.View{marked("widgets", "!")}, nil)
			if err == nil || !strings.Contains(err.Error(), "view widgets: widgets is a table in the database, not a view") {
				t.Fatalf("Ensure of a view under a table's name: %v", err)
			}
			if got := catalogStamp(t, db, engine); got != stamp {
				t.Errorf("a refused Ensure changed the catalog: %s, then %s", stamp, got)
			}

			if _, err := db.ExecContext(ctx, `CREATE INDEX widgets_by_data ON widgets (data)`); err != nil {
				t.Fatal(err)
			}
			err = views.Ensure(ctx, widgets, []viewstore.View{marked("widgets_by_data", "!")}, nil)
			if err == nil || !strings.Contains(err.Error(), "widgets_by_data is an index in the database, not a view") {
				t.Fatalf("Ensure of a view under an index's name: %v", err)
			}
		})
	}
}

// catalogStamp changes whenever the schema does: SQLite's schema
// version; on PostgreSQL the views' and tables' identities (a view made
// again is another).
func catalogStamp(t *testing.T, db *sql.DB, engine events.Engine) string {
	t.Helper()
	q := `SELECT CAST(schema_version AS TEXT) FROM pragma_schema_version`
	if engine == events.EnginePostgres {
		q = `SELECT string_agg(relname || '=' || oid::text, ',' ORDER BY relname) FROM pg_class
WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'v')`
	}
	var s string
	if err := db.QueryRowContext(t.Context(), q).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestViewCheck: a view without a name of the vocabulary's, without a
// query, or with a ';' in its query is refused, naming it.
func TestViewCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		view viewstore.View
		want string
	}{
		{"a name not an identifier", viewstore.View{Name: "Node Rows", Select: marked("x", "").Select}, `described view "Node Rows": the name is not a lower-case identifier`},
		{"no query", viewstore.View{Name: "rows"}, "view rows: no query"},
		{"a ';'", viewstore.View{Name: "rows", Select: func(events.Dialect) string { return "SELECT 1; DROP TABLE nodes" }}, "view rows: the query on sqlite holds a ';'"},
		{"an empty query", viewstore.View{Name: "rows", Select: func(events.Dialect) string { return " " }}, "view rows: the query on postgres is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.view.Check()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Check: %v; want %q", err, c.want)
			}
			if _, err := c.view.CreateSQL(events.EngineSQLite); err == nil {
				t.Error("CreateSQL made a statement of a view Check refuses")
			}
		})
	}
	for _, w := range viewstore.Views() {
		if err := w.Check(); err != nil {
			t.Errorf("described view %s: %v", w.Name, err)
		}
	}
}
