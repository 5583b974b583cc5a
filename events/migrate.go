package events

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// migrationName is NNNN_description.sql: at least four digits, then a
// description, so that names sort in the order they apply.
var migrationName = regexp.MustCompile(`^([0-9]{4,})_([A-Za-z0-9_\-]+)\.sql$`)

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    component  TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    checksum   TEXT    NOT NULL,
    applied_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (component, version)
) WITHOUT ROWID`

type migration struct {
	version  int64
	name     string
	sql      string
	checksum string
}

// Migrate applies the SQL files at the root of fsys that are named
// NNNN_description.sql, in version order, each exactly once and each in its
// own transaction, recording them in schema_migrations under component.
// Components are independent: "events" and "projections" each number their
// files from 0001. Files not ending in .sql are ignored; a .sql file with
// another name is an error, so a misnamed migration is never silently
// skipped.
//
// A file that was applied and has since been edited is an error: the
// database no longer matches what the code believes it is. Statements that
// cannot run inside a transaction (VACUUM, PRAGMA journal_mode) do not
// belong in migrations.
func Migrate(ctx context.Context, db *sql.DB, component string, fsys fs.FS) error {
	return migrate(ctx, db, component, fsys, sqliteMigrationStatements)
}

// migrate applies fsys's migrations with an engine's statements.
func migrate(ctx context.Context, db *sql.DB, component string, fsys fs.FS, st migrationStatements) error {
	if component == "" {
		return errors.New("migrate: component is empty")
	}
	migrations, err := readMigrations(fsys)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	for _, m := range migrations {
		if err := applyMigration(ctx, db, component, m, st); err != nil {
			return fmt.Errorf("migrate %s %s: %w", component, m.name, err)
		}
	}
	return nil
}

func readMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		match := migrationName.FindStringSubmatch(name)
		if match == nil {
			return nil, fmt.Errorf("%s: migration files are named NNNN_description.sql", name)
		}
		version, err := strconv.ParseInt(match[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		ms = append(ms, migration{version: version, name: name, sql: string(body), checksum: hex.EncodeToString(sum[:])})
	}
	slices.SortFunc(ms, func(a, b migration) int { return cmp.Compare(a.version, b.version) })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("%s and %s have the same version", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// migrationStatements are an engine's statements for applying
// migrations: lock (may be empty) serialises processes that start at
// once, create makes schema_migrations, and checksum and record read and
// write one file's row (component, version; then name and checksum).
type migrationStatements struct {
	lock, create, checksum, record string
}

var sqliteMigrationStatements = migrationStatements{
	// The transaction begins immediate (_txlock=immediate) and so holds
	// SQLite's write lock already.
	create:   createMigrationsTable,
	checksum: `SELECT checksum FROM schema_migrations WHERE component = ? AND version = ?`,
	record:   `INSERT INTO schema_migrations (component, version, name, checksum) VALUES (?, ?, ?, ?)`,
}

// applyMigration runs m unless it is recorded already. The check and the
// apply share one transaction, which holds the engine's lock, so two
// processes starting at once cannot both apply a file.
func applyMigration(ctx context.Context, db *sql.DB, component string, m migration, st migrationStatements) (err error) {
	tx, err := beginMigration(ctx, db, st.lock, st.create)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreTxDone(tx.Rollback()))
		}
	}()
	var applied string
	err = tx.QueryRowContext(ctx, st.checksum, component, m.version).Scan(&applied)
	switch {
	case err == nil && applied == m.checksum:
		return tx.Rollback()
	case err == nil:
		return errors.New("file changed after it was applied; add a new migration instead of editing this one")
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	if _, err = tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err = tx.ExecContext(ctx, st.record, component, m.version, m.name, m.checksum); err != nil {
		return err
	}
	return tx.Commit()
}

// MigrateTx runs fn in one transaction on db, of engine e, that holds the
// lock the migration files are applied under, and commits it when fn
// returns no error (rolls it back otherwise): a step of a component's
// migration that is made from a description rather than read from a file
// (viewstore's described tables), which replicas starting at once then
// take one after another as they take the files.
func MigrateTx(ctx context.Context, db *sql.DB, e Engine, fn func(*sql.Tx) error) (err error) {
	st := sqliteMigrationStatements
	if e == EnginePostgres {
		st = postgresMigrationStatements
	}
	tx, err := beginMigration(ctx, db, st.lock)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreTxDone(tx.Rollback()))
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// beginMigration begins a transaction on db and runs stmts in it (the
// engine's migration lock, the table of applied files; an empty one is
// passed over), rolling it back if one fails.
func beginMigration(ctx context.Context, db *sql.DB, stmts ...string) (*sql.Tx, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	for _, stmt := range stmts {
		if stmt == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return nil, errors.Join(err, ignoreTxDone(tx.Rollback()))
		}
	}
	return tx, nil
}

// RetiredMigration is a migration file a component no longer applies,
// whose work a step made from a description now does: its version, its
// name, and the checksum (sha256, in hex) herds that applied it recorded.
type RetiredMigration struct {
	Version        int64
	Name, Checksum string
}

// RecordRetired records each of files as applied under component, in tx
// (one of MigrateTx's, on engine e), where its version is not recorded
// already. Once the step that replaced the files has done their work, a
// herd from before, opening the database, finds them applied and does
// not apply them again over what is there.
func RecordRetired(ctx context.Context, tx *sql.Tx, e Engine, component string, files []RetiredMigration) error {
	stmt := `INSERT INTO schema_migrations (component, version, name, checksum) VALUES (?, ?, ?, ?)
ON CONFLICT (component, version) DO NOTHING`
	if e == EnginePostgres {
		stmt = e.Dialect().Bind(stmt)
	}
	for _, f := range files {
		if !migrationName.MatchString(f.Name) || len(f.Checksum) != 2*sha256.Size {
			return fmt.Errorf("retired migration %d %q: a name NNNN_description.sql and a sha256 checksum are needed", f.Version, f.Name)
		}
		if _, err := tx.ExecContext(ctx, stmt, component, f.Version, f.Name, f.Checksum); err != nil {
			return fmt.Errorf("record retired migration %s: %w", f.Name, err)
		}
	}
	return nil
}

func ignoreTxDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}
