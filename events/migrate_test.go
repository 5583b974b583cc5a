package events_test

import (
	"crypto/sha256"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func openTestDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := events.OpenDB(t.Context(), filepath.Join(t.TempDir(), "test.db"), events.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func file(sql string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(sql)} }

// applied lists component's recorded migrations as "version name".
func applied(t *testing.T, db *sql.DB, component string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT version || ' ' || name FROM schema_migrations WHERE component = ? ORDER BY version`, component)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	return got
}

func TestMigrate(t *testing.T) {
	good := fstest.MapFS{
		"0002_add_column.sql": file(`ALTER TABLE things ADD COLUMN colour TEXT; INSERT INTO log VALUES ('2');`),
		"0001_create.sql":     file(`CREATE TABLE things (id INTEGER PRIMARY KEY); CREATE TABLE log (step TEXT); INSERT INTO log VALUES ('1');`),
		"README.md":           file(`not a migration`),
	}
	tests := []struct {
		name        string
		fsys        fstest.MapFS
		wantErr     string // substring; "" for success
		wantApplied []string
		wantLog     []string
	}{
		{name: "applies in version order", fsys: good, wantApplied: []string{"1 0001_create.sql", "2 0002_add_column.sql"}, wantLog: []string{"1", "2"}},
		{name: "misnamed file", fsys: fstest.MapFS{"1_create.sql": file(`SELECT 1`)}, wantErr: "NNNN_description.sql"},
		{name: "duplicate version", fsys: fstest.MapFS{"0001_a.sql": file(`SELECT 1`), "0001_b.sql": file(`SELECT 1`)}, wantErr: "same version"},
		{
			name: "failing file is rolled back and not recorded",
			fsys: fstest.MapFS{
				"0001_create.sql": file(`CREATE TABLE log (step TEXT); INSERT INTO log VALUES ('1');`),
				"0002_broken.sql": file(`INSERT INTO log VALUES ('2'); INSERT INTO nowhere VALUES (1);`),
			},
			wantErr:     "0002_broken.sql",
			wantApplied: []string{"1 0001_create.sql"},
			wantLog:     []string{"1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openTestDB(t)
			err := events.Migrate(t.Context(), db, "test", tt.fsys)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Migrate = %v, want error containing %q", err, tt.wantErr)
			}
			if err != nil && tt.wantApplied == nil {
				return
			}
			if diff := cmp.Diff(tt.wantApplied, applied(t, db, "test")); diff != "" {
				t.Errorf("recorded (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLog, column(t, db, `SELECT step FROM log ORDER BY rowid`)); diff != "" {
				t.Errorf("effects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMigrateRunsEachFileOnce(t *testing.T) {
	db := openTestDB(t)
	fsys := fstest.MapFS{"0001_create.sql": file(`CREATE TABLE log (step TEXT); INSERT INTO log VALUES ('1');`)}
	for range 3 {
		if err := events.Migrate(t.Context(), db, "test", fsys); err != nil {
			t.Fatal(err)
		}
	}
	fsys["0002_more.sql"] = file(`INSERT INTO log VALUES ('2');`)
	for range 2 {
		if err := events.Migrate(t.Context(), db, "test", fsys); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"1", "2"}, column(t, db, `SELECT step FROM log ORDER BY rowid`)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
	// Components number their files independently.
	other := fstest.MapFS{"0001_create.sql": file(`CREATE TABLE other_log (step TEXT);`)}
	if err := events.Migrate(t.Context(), db, "other", other); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1 0001_create.sql"}, applied(t, db, "other")); diff != "" {
		t.Errorf("other component (-want +got):\n%s", diff)
	}
}

func TestMigrateRefusesAnEditedFile(t *testing.T) {
	db := openTestDB(t)
	if err := events.Migrate(t.Context(), db, "test", fstest.MapFS{"0001_create.sql": file(`CREATE TABLE log (step TEXT);`)}); err != nil {
		t.Fatal(err)
	}
	err := events.Migrate(t.Context(), db, "test", fstest.MapFS{"0001_create.sql": file(`CREATE TABLE log (step TEXT, extra TEXT);`)})
	if err == nil || !strings.Contains(err.Error(), "changed after it was applied") {
		t.Fatalf("Migrate with an edited file = %v, want a refusal", err)
	}
}

func TestOpenTwiceMigratesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "herd.db")
	for range 2 {
		s, err := events.Open(t.Context(), events.Config{Path: path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	db, err := events.OpenDB(t.Context(), path, events.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	want := []string{"1 0001_events.sql", "2 0002_consumer_offsets.sql", "3 0003_compaction.sql", "4 0004_write_probe.sql", "5 0005_snapshots.sql", "6 0006_audit_indexes.sql", "7 0007_append_checks_version.sql", "8 0008_audit_columns.sql", "9 0009_causation_covers_the_walk.sql"}
	if diff := cmp.Diff(want, applied(t, db, "events")); diff != "" {
		t.Errorf("events migrations (-want +got):\n%s", diff)
	}
}

// column runs query and returns its single text column.
func column(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRecordRetiredLetsTheFilesBeforeSkipTheirWork: files recorded as
// retired in a MigrateTx are skipped by a migration that still has them
// (a herd from before), a version recorded already is left as it is,
// and a retired file without a proper name or checksum is refused,
// naming it, with nothing recorded.
func TestRecordRetiredLetsTheFilesBeforeSkipTheirWork(t *testing.T) {
	ctx := t.Context()
	db := openTestDB(t)
	before := fstest.MapFS{
		"0001_create.sql": file(`CREATE TABLE log (step TEXT);`),
		"0002_things.sql": file(`CREATE TABLE things (id INTEGER PRIMARY KEY);`),
	}
	if err := events.Migrate(ctx, db, "test", fstest.MapFS{"0001_create.sql": before["0001_create.sql"]}); err != nil {
		t.Fatal(err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(before["0002_things.sql"].Data))
	record := func(files ...events.RetiredMigration) error {
		return events.MigrateTx(ctx, db, events.EngineSQLite, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS things (id INTEGER PRIMARY KEY)`); err != nil {
				return err
			}
			return events.RecordRetired(ctx, tx, events.EngineSQLite, "test", files)
		})
	}
	err := record(events.RetiredMigration{Version: 2, Name: "0002_things.sql", Checksum: sum},
		events.RetiredMigration{Version: 3, Name: "things.sql", Checksum: sum})
	if err == nil || !strings.Contains(err.Error(), `retired migration 3 "things.sql"`) {
		t.Fatalf("a retired file misnamed: %v", err)
	}
	if diff := cmp.Diff([]string{"1 0001_create.sql"}, applied(t, db, "test")); diff != "" {
		t.Errorf("recorded after a refusal (-want +got):\n%s", diff)
	}
	for range 2 {
		if err := record(events.RetiredMigration{Version: 1, Name: "0001_other.sql", Checksum: sum},
			events.RetiredMigration{Version: 2, Name: "0002_things.sql", Checksum: sum}); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"1 0001_create.sql", "2 0002_things.sql"}, applied(t, db, "test")); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if err := events.Migrate(ctx, db, "test", before); err != nil {
		t.Fatalf("the files before, over their work done and recorded: %v", err)
	}
}
