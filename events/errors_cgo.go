//go:build cgo

package events

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// constraintError reports whether err is SQLite's SQLITE_CONSTRAINT, and
// whether a trigger raised it.
func constraintError(err error) (constraint, trigger bool) {
	var se sqlite3.Error
	if !errors.As(err, &se) || se.Code != sqlite3.ErrConstraint {
		return false, false
	}
	return true, se.ExtendedCode == sqlite3.ErrConstraintTrigger
}

// storageError reports whether err is SQLite failing to store what it was
// given — a full disk (SQLITE_FULL, also what max_page_count gives), an
// I/O error, a read-only or unopenable file — rather than refusing a
// statement for what it says.
func storageError(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
		return true
	}
	return false
}

// damaged reports whether err is SQLite finding a file malformed
// (SQLITE_CORRUPT) or not a database at all (SQLITE_NOTADB).
func damaged(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// LockedOut reports whether err is SQLite's refusal of a statement that
// waited out the busy timeout for a lock another connection held
// (SQLITE_BUSY): nothing was written, and the same write may be tried
// again.
func LockedOut(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrBusy
}
