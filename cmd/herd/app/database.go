package app

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"herd/events"
)

// database is where the event log and its views live, as --database
// names it.
type database struct {
	engine events.Engine
	// path is the SQLite file, url the PostgreSQL connection string.
	path, url string
}

// parseDatabase reads --database: sqlite:///path/to/herd.db (a path
// after "sqlite://", absolute with a third slash), or a PostgreSQL
// connection string in libpq's URL form (postgres:// or postgresql://)
// or key=value form. Empty is herd.db in dataDir.
func parseDatabase(s, dataDir string) (database, error) {
	switch {
	case s == "":
		return database{engine: events.EngineSQLite, path: filepath.Join(dataDir, events.DatabaseFileName)}, nil
	case strings.HasPrefix(s, "sqlite://"):
		p := strings.TrimPrefix(s, "sqlite://")
		if p == "" || strings.HasSuffix(p, "/") {
			return database{}, fmt.Errorf("--database %q: want sqlite:///path/to/herd.db, a file", s)
		}
		return database{engine: events.EngineSQLite, path: p}, nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if _, err := url.Parse(s); err != nil {
			return database{}, fmt.Errorf("--database: not a PostgreSQL URL: %w", err)
		}
		return database{engine: events.EnginePostgres, url: s}, nil
	case strings.Contains(s, "="):
		return database{engine: events.EnginePostgres, url: s}, nil
	}
	return database{}, fmt.Errorf("--database %q: want sqlite:///path/to/herd.db or a PostgreSQL URL (postgres://user@host/db)", redactDatabase(s))
}

// dir is the directory herd serve locks for a SQLite database: the
// file's own, so that two herds never write one file.
func (d database) dir() string { return filepath.Dir(d.path) }

// String names the database for logs, without a password.
func (d database) String() string {
	if d.engine == events.EngineSQLite {
		return "sqlite://" + d.path
	}
	return redactDatabase(d.url)
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
