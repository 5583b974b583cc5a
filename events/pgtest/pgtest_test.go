package pgtest_test

import (
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"herd/events/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// open connects to the database at u through database/sql, as herd does.
func open(t *testing.T, u string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// dbName is the database a URL names.
func dbName(t *testing.T, u string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Hostname() != "127.0.0.1" {
		t.Fatalf("%s: host %q, want 127.0.0.1", u, parsed.Hostname())
	}
	return strings.TrimPrefix(parsed.Path, "/")
}

func TestURLIsAnEmptyDatabaseOfItsOwn(t *testing.T) {
	a, b := pgtest.URL(t), pgtest.URL(t)
	if dbName(t, a) == dbName(t, b) {
		t.Fatalf("two URLs name one database: %s and %s", a, b)
	}
	dbA, dbB := open(t, a), open(t, b)
	ctx := t.Context()
	if _, err := dbA.ExecContext(ctx, `CREATE TABLE things (name TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if _, err := dbA.ExecContext(ctx, `INSERT INTO things VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := dbA.QueryRowContext(ctx, `SELECT count(*) FROM things`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("first database: %d things, %v; want 1", n, err)
	}
	var table sql.NullString
	if err := dbB.QueryRowContext(ctx, `SELECT to_regclass('things')::text`).Scan(&table); err != nil {
		t.Fatal(err)
	}
	if table.Valid {
		t.Errorf("second database sees the first's table %q", table.String)
	}
}

func TestDatabaseIsDroppedAfterTheTest(t *testing.T) {
	var name string
	t.Run("uses", func(t *testing.T) {
		u := pgtest.URL(t)
		name = dbName(t, u)
		// A connection left open does not keep the database.
		db := open(t, u)
		if _, err := db.ExecContext(t.Context(), `CREATE TABLE things (name TEXT)`); err != nil {
			t.Fatal(err)
		}
	})
	admin := open(t, pgtest.Server(t).AdminURL())
	var n int
	err := admin.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&n)
	if err != nil || n != 0 {
		t.Errorf("after the test, pg_database lists %s %d times (%v); want none", name, n, err)
	}
}

func TestDropDropsTheDatabaseBeforeTheTestEnds(t *testing.T) {
	db, err := pgtest.NewDatabase(t)
	if err != nil {
		t.Fatal(err)
	}
	conn := open(t, db.URL)
	if _, err := conn.ExecContext(t.Context(), `CREATE TABLE things (name TEXT)`); err != nil {
		t.Fatal(err)
	}
	// A connection still open does not keep the database.
	if err := db.Drop(); err != nil {
		t.Fatal(err)
	}
	admin := open(t, pgtest.Server(t).AdminURL())
	var n int
	err = admin.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_database WHERE datname = $1`, dbName(t, db.URL)).Scan(&n)
	if err != nil || n != 0 {
		t.Errorf("after Drop, pg_database lists the database %d times (%v); want none", n, err)
	}
	if err := db.Drop(); err != nil {
		t.Errorf("dropping it again: %v", err)
	}
}

func TestCommittedRowsSurviveAnImmediateStop(t *testing.T) {
	u := pgtest.URL(t)
	s := pgtest.Server(t)
	port := s.Port()
	db := open(t, u)
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE things (name TEXT); INSERT INTO things VALUES ('kept')`); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop("immediate"); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if s.Port() != port {
		t.Fatalf("port %d after the restart, was %d", s.Port(), port)
	}
	var name string
	if err := db.QueryRowContext(t.Context(), `SELECT name FROM things`).Scan(&name); err != nil || name != "kept" {
		t.Errorf("after the restart: %q, %v; want kept", name, err)
	}
}
