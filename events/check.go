package events

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// sqliteHeader is how every SQLite 3 database file begins
// (https://www.sqlite.org/fileformat.html, "The Database Header").
var sqliteHeader = []byte("SQLite format 3\x00")

// maxCheckProblems is how many of quick_check's findings a DamagedError
// quotes: the first few say enough to search for, and a badly damaged
// file can yield thousands.
const maxCheckProblems = 5

// DamagedError is an existing database file herd will not open as its
// event log: empty, not SQLite, damaged, another application's, or
// written by a newer herd. Opening it as if it were a new or a whole log
// would start an empty fleet, or serve a log that fails later, halfway
// through a write. A file that does not exist yet is not damaged: Open
// creates it.
type DamagedError struct {
	// Path is the database file.
	Path string
	// Kind is what is wrong, for a caller that says what to do about it.
	Kind Damage
	// Problem says what is wrong with it, in words.
	Problem string
}

// Damage is what is wrong with a database file herd refuses.
type Damage int

const (
	// DamageEmpty is a file of 0 bytes, or a SQLite database without tables.
	DamageEmpty Damage = iota + 1
	// DamageCorrupt is a file SQLite cannot read whole: not a database at
	// all, or one whose pages or indexes are malformed.
	DamageCorrupt
	// DamageForeign is a sound SQLite database that is not herd's log.
	DamageForeign
	// DamageNewer is herd's log migrated by a newer herd than this one.
	DamageNewer
)

func (e *DamagedError) Error() string {
	return fmt.Sprintf("the event log %s %s", e.Path, e.Problem)
}

// existingFile reports whether path is a file already there, and refuses
// one that cannot be a SQLite database: empty, or with another header.
// These two are checked by hand because SQLite takes an empty file for a
// new database, and says only "file is not a database" of another.
func existingFile(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("events: open %s: %w", path, err)
	}
	defer f.Close() //nolint:errcheck // read only
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && (err == nil || errors.Is(err, io.EOF)):
		return true, &DamagedError{Path: path, Kind: DamageEmpty, Problem: "is empty (0 bytes): a file that herd wrote holds at least its schema, so its content was lost (a new fleet starts from no file at all)"}
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return true, fmt.Errorf("events: read %s: %w", path, err)
	case !bytes.Equal(head[:n], sqliteHeader):
		return true, &DamagedError{Path: path, Kind: DamageForeign, Problem: fmt.Sprintf("is not a SQLite database: it begins %q, not %q", head[:n], sqliteHeader)}
	}
	return true, nil
}

// Check is what Open found of the file it opened.
type Check struct {
	// Existing is whether the file was there before; a new one is not
	// checked.
	Existing bool
	// Complete is whether PRAGMA quick_check read the whole file within
	// Config.CheckTimeout.
	Complete bool
	// Took is how long the checks took.
	Took time.Duration
}

// checkExisting is what Open asks of a file that was already there before
// it trusts it: SQLite's own check of its pages and indexes (PRAGMA
// quick_check: every page and record well formed, without cross-checking
// each index against its table, which integrity_check does at several
// times the cost) for at most timeout, and herd's event log in it at a
// schema this herd knows.
//
// It reads through a read-only connection of its own, before Open's
// connections set WAL mode: a file refused must be left as it was found,
// and another application's database is not herd's to convert.
func checkExisting(ctx context.Context, path string, timeout time.Duration) (Check, error) {
	start := time.Now()
	check := Check{Existing: true, Complete: true}
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return check, fmt.Errorf("events: check %s: %w", path, err)
	}
	defer db.Close() //nolint:errcheck // read only
	db.SetMaxOpenConns(1)
	checkCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		checkCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	problems, err := quickCheck(checkCtx, db)
	cut := checkCtx.Err() != nil && ctx.Err() == nil
	cancel()
	switch {
	case cut:
		// What was read was sound; the rest is trusted, as Check says.
		check.Complete = false
	case err != nil && damaged(err):
		return check, &DamagedError{Path: path, Kind: DamageCorrupt, Problem: "is damaged: SQLite cannot read it: " + err.Error()}
	case err != nil:
		return check, fmt.Errorf("events: check %s: %w", path, err)
	}
	if len(problems) > 0 {
		return check, &DamagedError{Path: path, Kind: DamageCorrupt, Problem: "is damaged: SQLite's integrity check (PRAGMA quick_check) reports: " + strings.Join(problems, "; ")}
	}
	err = checkSchema(ctx, db, path)
	check.Took = time.Since(start)
	return check, err
}

// quickCheck runs PRAGMA quick_check and returns what it found wrong
// (nothing for a sound file), at most maxCheckProblems of it.
func quickCheck(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf("PRAGMA quick_check(%d)", maxCheckProblems))
	if err != nil {
		return nil, err
	}
	defer rows.Close() //nolint:errcheck // rows.Err says it
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		// Findings come as lines, some rows holding several.
		for l := range strings.SplitSeq(line, "\n") {
			if l != "ok" && l != "*** in database main ***" && l != "" {
				problems = append(problems, l)
			}
		}
	}
	return problems, rows.Err()
}

// checkSchema refuses a sound SQLite file that is not herd's event log, or
// is one a newer herd has migrated further than this one knows.
func checkSchema(ctx context.Context, db *sql.DB, path string) error {
	tables, err := tableNames(ctx, db)
	if err != nil {
		return fmt.Errorf("events: check %s: %w", path, err)
	}
	switch {
	case len(tables) == 0:
		return &DamagedError{Path: path, Kind: DamageEmpty, Problem: "holds no tables: it is an empty SQLite database, not a herd event log (a new fleet starts from no file at all)"}
	case !tables["schema_migrations"] || !tables["events"]:
		return &DamagedError{Path: path, Kind: DamageForeign, Problem: fmt.Sprintf("is not a herd event log: it is a SQLite database without herd's tables (it has %s), another application's file perhaps", listTables(tables))}
	}
	var applied sql.NullInt64
	err = db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations WHERE component = 'events'`).Scan(&applied)
	if err != nil {
		return fmt.Errorf("events: check %s: %w", path, err)
	}
	known, err := readMigrations(Migrations())
	if err != nil {
		return err
	}
	newest := known[len(known)-1].version
	switch {
	case !applied.Valid:
		return &DamagedError{Path: path, Kind: DamageForeign, Problem: "is not a herd event log: its schema_migrations table records no migration of herd's event log"}
	case applied.Int64 > newest:
		return &DamagedError{Path: path, Kind: DamageNewer, Problem: fmt.Sprintf("was written by a newer herd: its event log is at schema version %d, and this herd knows versions up to %d (run the newer herd)", applied.Int64, newest)}
	}
	return nil
}

// tableNames are the names of the tables in db's schema.
func tableNames(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close() //nolint:errcheck // rows.Err says it
	tables := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		tables[name] = true
	}
	return tables, rows.Err()
}

// listTables names a few of tables, for a message.
func listTables(tables map[string]bool) string {
	names := make([]string, 0, len(tables))
	for name := range tables {
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) > 5 {
		names = append(names[:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	return "tables " + strings.Join(names, ", ")
}
