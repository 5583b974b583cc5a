package eventstest

import (
	"database/sql"
	"testing"
)

// HoldWriteLock runs fn while conn holds SQLite's write lock: a follower
// that asked for the lock meanwhile would wait, or fail with SQLITE_BUSY.
func HoldWriteLock(t testing.TB, conn *sql.Conn, fn func()) {
	t.Helper()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	fn()
	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
}

// DataVersion is SQLite's data_version as conn sees it: it changes when
// another connection commits a write, so an unchanged value shows that
// nobody wrote.
func DataVersion(t testing.TB, conn *sql.Conn) int64 {
	t.Helper()
	var v int64
	if err := conn.QueryRowContext(t.Context(), "PRAGMA data_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
