package projections

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL's database/sql driver, "pgx"

	"herd/events"
	"herd/events/pgtest"
)

// TestMain stops the tests' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// viewEngine runs a viewSchema's statements on one engine.
type viewEngine struct {
	name    string
	dialect events.Dialect
	exec    func(ctx context.Context, q string, args ...any) error
	// rows runs q and scans each row into a key and its data.
	rows func(ctx context.Context, q string, args ...any) ([]viewRow, error)
	// one runs q and scans its one row into dest.
	one func(ctx context.Context, q string, args []any, dest ...any) error
}

type viewRow struct {
	Namespace, Name string
	Data            string
}

func sqliteViewEngine(t *testing.T) viewEngine {
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if err := Migrate(t.Context(), store.Log()); err != nil {
		t.Fatal(err)
	}
	return sqlViewEngine("sqlite", events.EngineSQLite.Dialect(), store.DB())
}

func postgresViewEngine(t *testing.T) viewEngine {
	db, err := sql.Open("pgx", pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := events.MigratePostgres(t.Context(), db, "projections", PostgresMigrations()); err != nil {
		t.Fatal(err)
	}
	return sqlViewEngine("postgres", events.EnginePostgres.Dialect(), db)
}

// sqlViewEngine runs statements through database/sql, as the views do on
// either engine (viewDB).
func sqlViewEngine(name string, d events.Dialect, sqlDB *sql.DB) viewEngine {
	db := &viewDB{db: sqlDB, d: d}
	return viewEngine{
		name: name, dialect: d,
		exec: func(ctx context.Context, q string, args ...any) error {
			_, err := db.ExecContext(ctx, q, args...)
			return err
		},
		rows: func(ctx context.Context, q string, args ...any) ([]viewRow, error) {
			rows, err := db.QueryContext(ctx, q, args...)
			if err != nil {
				return nil, err
			}
			return scanViewRows(rows.Next, rows.Scan, rows.Err, rows.Close)
		},
		one: func(ctx context.Context, q string, args []any, dest ...any) error {
			return db.QueryRowContext(ctx, q, args...).Scan(dest...)
		},
	}
}

func scanViewRows(next func() bool, scan func(...any) error, rowsErr func() error, closeRows func() error) ([]viewRow, error) {
	defer func() { _ = closeRows() }()
	var out []viewRow
	for next() {
		var (
			r    viewRow
			data []byte
		)
		if err := scan(&r.Namespace, &r.Name, &data); err != nil {
			return nil, err
		}
		r.Data = string(data)
		out = append(out, r)
	}
	return out, rowsErr()
}

// TestLeaseSchemaStatementsAgreeOnEveryEngine: the statements made from
// the lease view's schema upsert, get and page through rows alike on
// SQLite and PostgreSQL — keys in byte order, whatever PostgreSQL's
// locale would say (COLLATE "C"), a limit of 0 meaning none.
func TestLeaseSchemaStatementsAgreeOnEveryEngine(t *testing.T) {
	type page struct {
		ns, name string
		limit    int
	}
	pages := []page{{"", "", 0}, {"", "", 2}, {"default", "a-z", 2}, {"default", "a.b", 0}, {"kube-node-lease", "n1", 0}}
	var results [][][]viewRow
	for _, open := range []func(*testing.T) viewEngine{sqliteViewEngine, postgresViewEngine} {
		e := open(t)
		ctx := t.Context()
		upsert := leaseSchema.UpsertSQL()
		for _, r := range []struct {
			ns, name string
			deleted  bool
			version  int64
			data     string
		}{
			{"default", "a.b", false, 1, `{"v":1}`},
			{"default", "a-z", false, 1, `{"v":1}`},
			{"kube-node-lease", "n1", false, 1, `{"v":1}`},
			{"default", "a.b", false, 2, `{"v":2}`},
			{"default", "a-z", true, 2, `{"deleted":true}`},
		} {
			if err := e.exec(ctx, upsert, r.ns, r.name, r.deleted, r.version, r.version*10, r.version*100, []byte(r.data)); err != nil {
				t.Fatalf("%s: upsert %s/%s: %v", e.name, r.ns, r.name, err)
			}
		}
		got, err := e.rows(ctx, "SELECT namespace, name, data FROM ("+leaseSchema.RowsAfterSQL("data")+") r", "default", "", events.LimitOf(1))
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		if len(got) != 1 || got[0].Name != "a-z" {
			t.Errorf("%s: the first row of default: %+v, want a-z (byte order: - before .)", e.name, got)
		}
		var pagesOf [][]viewRow
		for _, p := range pages {
			rows, err := e.rows(ctx, leaseSchema.RowsAfterSQL("data"), p.ns, p.name, events.LimitOf(p.limit))
			if err != nil {
				t.Fatalf("%s: rows after %s/%s: %v", e.name, p.ns, p.name, err)
			}
			pagesOf = append(pagesOf, rows)
		}
		results = append(results, pagesOf)
		var data []byte
		var renewed int64
		if err := e.one(ctx, leaseSchema.GetSQL("data", "renewed_at"), []any{"default", "a.b"}, &data, &renewed); err != nil {
			t.Fatalf("%s: get: %v", e.name, err)
		}
		if string(data) != `{"v":2}` || renewed != 200 {
			t.Errorf("%s: get default/a.b = %s, renewed %d; want the second upsert's", e.name, data, renewed)
		}
	}
	want := [][]viewRow{
		{{"default", "a-z", `{"deleted":true}`}, {"default", "a.b", `{"v":2}`}, {"kube-node-lease", "n1", `{"v":1}`}},
		{{"default", "a-z", `{"deleted":true}`}, {"default", "a.b", `{"v":2}`}},
		{{"default", "a.b", `{"v":2}`}, {"kube-node-lease", "n1", `{"v":1}`}},
		{{"kube-node-lease", "n1", `{"v":1}`}},
		nil,
	}
	for i, engine := range []string{"sqlite", "postgres"} {
		if diff := cmp.Diff(want, results[i]); diff != "" {
			t.Errorf("%s: pages (-want +got):\n%s", engine, diff)
		}
	}
}
