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
