package events

import "database/sql"

// SQLDB is the database/sql pool behind log, on either engine, and its
// engine: the views read their tables beside the log through it. It is
// nil for a Log of neither engine (a test's fake).
func SQLDB(log Log) (*sql.DB, Engine) {
	switch l := log.(type) {
	case sqliteLog:
		return l.s.db, EngineSQLite
	case *Postgres:
		return l.db, EnginePostgres
	}
	return nil, ""
}

// SQLiteStore is the SQLite store behind log, or nil when another engine
// keeps it: what herd does on SQLite only (copying the file to verify
// it, the file's size) asks for it.
func SQLiteStore(log Log) *Store {
	if l, ok := log.(sqliteLog); ok {
		return l.s
	}
	return nil
}
