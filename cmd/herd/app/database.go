package app

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"herd/events"
)

// Database is where the event log and its views live, as --database
// names it.
type Database struct {
	Engine events.Engine
	// Path is the SQLite file, URL the PostgreSQL connection string.
	Path, URL string
}

// ParseDatabase reads --database: sqlite:///path/to/herd.db (a path
// after "sqlite://", absolute with a third slash), or a PostgreSQL
// connection string in libpq's URL form (postgres:// or postgresql://)
// or key=value form. Empty is herd.db in dataDir.
func ParseDatabase(s, dataDir string) (Database, error) {
	switch {
	case s == "":
		return Database{Engine: events.EngineSQLite, Path: filepath.Join(dataDir, events.DatabaseFileName)}, nil
	case strings.HasPrefix(s, "sqlite://"):
		p := strings.TrimPrefix(s, "sqlite://")
		if p == "" || strings.HasSuffix(p, "/") {
			return Database{}, fmt.Errorf("--database %q: want sqlite:///path/to/herd.db, a file", s)
		}
		return Database{Engine: events.EngineSQLite, Path: p}, nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if _, err := url.Parse(s); err != nil {
			return Database{}, fmt.Errorf("--database: not a PostgreSQL URL: %w", err)
		}
		return Database{Engine: events.EnginePostgres, URL: s}, nil
	case strings.Contains(s, "="):
		return Database{Engine: events.EnginePostgres, URL: s}, nil
	}
	return Database{}, fmt.Errorf("--database %q: want sqlite:///path/to/herd.db or a PostgreSQL URL (postgres://user@host/db)", redactDatabase(s))
}

// dir is the directory herd serve locks for a SQLite database: the
// file's own, so that two herds never write one file.
func (d Database) dir() string { return filepath.Dir(d.Path) }

// String names the database for logs, without a password.
func (d Database) String() string {
	if d.Engine == events.EngineSQLite {
		return "sqlite://" + d.Path
	}
	return redactDatabase(d.URL)
}

// redactDatabase is a connection string with its password hidden, in
// either of libpq's forms.
func redactDatabase(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	fields := strings.Fields(s)
	for i, f := range fields {
		if strings.HasPrefix(f, "password=") {
			fields[i] = "password=xxxxx"
		}
	}
	return strings.Join(fields, " ")
}
