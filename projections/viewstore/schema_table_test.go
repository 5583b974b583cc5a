package viewstore_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"herd/events"
	"herd/projections/viewstore"
)

// TestTableCheckNamesWhatIsWrong: a description either engine could not
// make, or would make differently, is refused with an error naming the
// table and the column, key or index at fault, and no DDL is made.
func TestTableCheckNamesWhatIsWrong(t *testing.T) {
	good := func() viewstore.Table { return viewstore.ObjectTable("widgets", true) }
	if err := good().Check(); err != nil {
		t.Fatalf("an object table: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(*viewstore.Table)
		want   string
	}{
		{"a type out of the vocabulary", func(tb *viewstore.Table) { tb.Columns[3].Type = "varchar(10)" },
			`table widgets: column version: type "varchar(10)" is not one of bytes, flag, int, int32, keytext, text`},
		{"no primary key", func(tb *viewstore.Table) { tb.Key = nil }, "table widgets: no primary key"},
		{"a key of no column", func(tb *viewstore.Table) { tb.Key = []string{"namespace", "uid"} },
			"table widgets: primary key column uid is not one of its columns"},
		{"a key that may be NULL", func(tb *viewstore.Table) { tb.Columns[1].Null = true },
			"table widgets: primary key column name may be NULL"},
		{"a column twice", func(tb *viewstore.Table) { tb.Columns = append(tb.Columns, tb.Columns[2]) },
			"table widgets: column deleted is described twice"},
		{"an index of no column", func(tb *viewstore.Table) { tb.Indexes[0].Columns = []string{"namespace", "owner"} },
			"table widgets: index widgets_by_controller: column owner is not one of its columns"},
		{"a default no engine reads alike", func(tb *viewstore.Table) { tb.Columns[2].Default = "false" },
			"table widgets: column deleted: default false is not an integer or a quoted string"},
		{"a fill for one engine", func(tb *viewstore.Table) { tb.Columns[6].Fill.Postgres = "" },
			"table widgets: column controller: a fill is needed for both engines or neither"},
		{"a condition naming a substring it lacks", func(tb *viewstore.Table) { tb.Indexes[0].Where = "deleted = 0 AND {0}" },
			"table widgets: index widgets_by_controller: its condition names {0}, and it has 0 conditions of Holds"},
		{"a substring its condition does not name", func(tb *viewstore.Table) {
			tb.Indexes[0].Holds = []viewstore.Holds{{Column: "data", Text: `"drain":{`}}
		}, "table widgets: index widgets_by_controller: its condition does not name {0}, Holds' data"},
		{"a substring of a column not of bytes", func(tb *viewstore.Table) {
			tb.Indexes[0].Where, tb.Indexes[0].Holds = "{0}", []viewstore.Holds{{Column: "name", Text: "x"}}
		}, "table widgets: index widgets_by_controller: Holds' column name is of type keytext, not bytes"},
		{"a substring of no column", func(tb *viewstore.Table) {
			tb.Indexes[0].Where, tb.Indexes[0].Holds = "{0}", []viewstore.Holds{{Column: "spec", Text: "x"}}
		}, "table widgets: index widgets_by_controller: Holds' column spec is not one of its columns"},
		{"an empty substring", func(tb *viewstore.Table) {
			tb.Indexes[0].Where, tb.Indexes[0].Holds = "{0}", []viewstore.Holds{{Column: "data"}}
		}, "table widgets: index widgets_by_controller: Holds' text in data is empty"},
		{"a name that is no identifier", func(tb *viewstore.Table) { tb.Name = "widgets; DROP TABLE pods" },
			`described table "widgets; DROP TABLE pods": the name is not a lower-case identifier`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := good()
			tb.Columns = append([]viewstore.Column(nil), tb.Columns...)
			tb.Indexes = append([]viewstore.TableIndex(nil), tb.Indexes...)
			c.change(&tb)
			err := tb.Check()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check: %v; want %q", err, c.want)
			}
			for _, e := range []events.Engine{events.EngineSQLite, events.EnginePostgres} {
				if ddl, err := tb.CreateSQL(e); err == nil || ddl != nil {
					t.Errorf("CreateSQL on %s: %q, %v; want it refused", e, ddl, err)
				}
			}
		})
	}
}

// TestTableCreateSQLSpellsEachEngine: one description makes each
// engine's table in its own types, keys bytewise on both.
func TestTableCreateSQLSpellsEachEngine(t *testing.T) {
	tb := viewstore.ObjectTable("widgets", true)
	for e, want := range map[events.Engine][]string{
		events.EngineSQLite: {`CREATE TABLE IF NOT EXISTS widgets (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data BLOB NOT NULL,
    controller TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (namespace, name)
) WITHOUT ROWID`, `CREATE INDEX IF NOT EXISTS widgets_by_controller ON widgets (namespace, controller) WHERE deleted = 0`},
		events.EnginePostgres: {`CREATE TABLE IF NOT EXISTS widgets (
    namespace text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    deleted smallint NOT NULL DEFAULT 0,
    version bigint NOT NULL,
    resource_version bigint NOT NULL,
    data bytea NOT NULL,
    controller text COLLATE "C" NOT NULL DEFAULT '',
    PRIMARY KEY (namespace, name)
)`, `CREATE INDEX IF NOT EXISTS widgets_by_controller ON widgets (namespace, controller) WHERE deleted = 0`},
	} {
		got, err := tb.CreateSQL(e)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ";\n") != strings.Join(want, ";\n") {
			t.Errorf("%s:\n%s\nwant\n%s", e, strings.Join(got, ";\n"), strings.Join(want, ";\n"))
		}
	}
	// A rowid table whose key SQLite lets be NULL, and an index on
	// substrings of the row's JSON, as the node view's are.
	tb = viewstore.Table{
		Name: "gizmos",
		Columns: []viewstore.Column{
			{Name: "name", Type: viewstore.TypeText, Null: true},
			{Name: "ready", Type: viewstore.TypeText},
			{Name: "data", Type: viewstore.TypeBytes},
		},
		Key:   []string{"name"},
		RowID: true,
		Indexes: []viewstore.TableIndex{{Name: "gizmos_odd", Columns: []string{"name"},
			Where: "ready <> 'True' OR {1} OR {0}",
			Holds: []viewstore.Holds{{Column: "data", Text: `"drain":{`}, {Column: "data", Text: `it's \ odd`}}}},
	}
	for e, want := range map[events.Engine][]string{
		events.EngineSQLite: {`CREATE TABLE IF NOT EXISTS gizmos (
    name TEXT,
    ready TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (name)
)`, `CREATE INDEX IF NOT EXISTS gizmos_odd ON gizmos (name) WHERE ready <> 'True' OR instr(CAST(data AS TEXT), 'it''s \ odd') > 0 OR instr(CAST(data AS TEXT), '"drain":{') > 0`},
		events.EnginePostgres: {`CREATE TABLE IF NOT EXISTS gizmos (
    name text,
    ready text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (name)
)`, `CREATE INDEX IF NOT EXISTS gizmos_odd ON gizmos (name) WHERE ready <> 'True' OR position('it''s \\ odd'::bytea IN data) > 0 OR position('"drain":{'::bytea IN data) > 0`},
	} {
		got, err := tb.CreateSQL(e)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ";\n") != strings.Join(want, ";\n") {
			t.Errorf("%s:\n%s\nwant\n%s", e, strings.Join(got, ";\n"), strings.Join(want, ";\n"))
		}
	}
	tb.RowID = false
	if err := tb.Check(); err == nil || !strings.Contains(err.Error(), "table gizmos: primary key column name may be NULL") {
		t.Errorf("a key that may be NULL in a table without rowid: %v", err)
	}
	tb = viewstore.ObjectTable("widgets", true)
	if s := tb.Schema(); s.Table != "widgets" || strings.Join(s.Keys, ",") != "namespace,name" ||
		strings.Join(s.Columns, ",") != "deleted,version,resource_version,data,controller" {
		t.Errorf("Schema: %+v", s)
	}
}

// TestEnsureMakesANewKindsTableAndUpgradesAnOlderOne: a described table
// no migration file names is made on each engine and serves its store;
// made again it is left as it is; its description grown by a column (the
// controller) adds the column to the table an older herd made, filled
// from the rows' JSON, and its index; a table with a column its
// description lacks is refused, naming the column, and left unchanged.
func TestEnsureMakesANewKindsTableAndUpgradesAnOlderOne(t *testing.T) {
	for _, open := range []func(*testing.T) engine{openSQLite, openPostgres} {
		e := open(t)
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			db, engine := events.SQLDB(e.log)
			views := viewstore.NewDBOn(db, engine.Dialect())
			plain := viewstore.ObjectTable("widgets", false)
			for range 2 {
				if err := views.Ensure(ctx, []viewstore.Table{plain}, nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			store := viewstore.New(plain.Schema())
			owned := obj("default", "owned", false, 1)
			owned.Data = []byte(`{"ns":"default","name":"owned","owners":[{"kind":"Other","name":"x"},{"kind":"Deployment","name":"web","controller":true}]}`)
			write(t, e.log, func(x *events.ViewTx) {
				for _, r := range []viewstore.Row{owned, obj("default", "free", false, 2)} {
					if err := store.Upsert(ctx, x, r); err != nil {
						t.Fatal(err)
					}
				}
			})

			if err := views.Ensure(ctx, []viewstore.Table{viewstore.ObjectTable("widgets", true)}, nil, nil); err != nil {
				t.Fatal(err)
			}
			with := viewstore.New(viewstore.Objects("widgets", true))
			p := pool{db: db, d: engine.Dialect()}
			for ctl, want := range map[string]string{"Deployment/web": "default/owned", "": "default/free"} {
				data, _, err := with.Controlled(ctx, p, "default", []string{ctl})
				if err != nil || len(data) != 1 {
					t.Fatalf("controlled by %q: %d rows, %v", ctl, len(data), err)
				}
				if names(t, data)[0] != want {
					t.Errorf("controlled by %q: %v; want %s", ctl, names(t, data), want)
				}
			}
			if !hasIndex(t, db, engine, "widgets", "widgets_by_controller") {
				t.Error("the controller's index was not made")
			}

			// The table has a column the description does not.
			err := views.Ensure(ctx, []viewstore.Table{plain, viewstore.ObjectTable("gadgets", false)}, nil, nil)
			if err == nil || !strings.Contains(err.Error(), "table widgets: column controller is in the database but not in the table's description") {
				t.Fatalf("Ensure of a description short of a column: %v", err)
			}
			if cols := columnCount(t, db, engine, "gadgets"); cols != 0 {
				t.Errorf("a refused Ensure made gadgets (%d columns)", cols)
			}
			// A column to add with neither default nor NULL.
			grown := viewstore.ObjectTable("widgets", true)
			grown.Columns = append(grown.Columns, viewstore.Column{Name: "uid", Type: viewstore.TypeText})
			err = views.Ensure(ctx, []viewstore.Table{grown}, nil, nil)
			if err == nil || !strings.Contains(err.Error(), "table widgets: column uid is missing, and without a default or NULL it cannot be added") {
				t.Fatalf("Ensure of a column without a default: %v", err)
			}
			if cols := columnCount(t, db, engine, "widgets"); cols != 7 {
				t.Errorf("widgets has %d columns after a refused Ensure; want 7", cols)
			}
		})
	}
}

func hasIndex(t *testing.T, db *sql.DB, engine events.Engine, table, index string) bool {
	t.Helper()
	d := engine.Dialect()
	rows, err := db.QueryContext(context.Background(), d.Bind(d.TableIndexes()), table)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			t.Fatal(err)
		}
		if name == index {
			return true
		}
	}
	return false
}

func columnCount(t *testing.T, db *sql.DB, engine events.Engine, table string) int {
	t.Helper()
	q := `SELECT count(*) FROM pragma_table_info(?)`
	if engine == events.EnginePostgres {
		q = `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`
	}
	var n int
	if err := db.QueryRowContext(context.Background(), q, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
