//go:build cgo

package events

import (
	"database/sql"

	"github.com/mattn/go-sqlite3"
)

// scratchDriver is the SQLite driver a scratch log opens with: the
// "sqlite3" driver, plus the settings its DSN cannot carry, run on every
// connection it opens (scratchPragmas).
const scratchDriver = "herd-sqlite3-scratch"

func init() {
	sql.Register(scratchDriver, &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec(scratchPragmas, nil)
			return err
		},
	})
}
