package app

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"herd/events"
)

// ExplainDamage adds to an error opening a SQLite log that the file is
// damaged (events.DamagedError) what the operator can do about it: herd
// refuses the file rather than start an empty fleet on it, or serve a log
// that fails halfway through a write, so the way out must be in the
// message. Any other error is returned as it is.
func ExplainDamage(err error) error {
	d, ok := errors.AsType[*events.DamagedError](err)
	if !ok {
		return err
	}
	var hint string
	switch d.Kind {
	case events.DamageCorrupt:
		hint = fmt.Sprintf(`herd will not start on it. Stop every herd using it, then either:
  - restore %[1]s from a backup (and remove %[1]s-wal and %[1]s-shm, which belong to the damaged file), or
  - salvage what SQLite can still read into a new file: sqlite3 %[1]s ".recover" | sqlite3 NEW/herd.db,
    then rebuild and check its views with: herd replay --data-dir NEW && herd replay --verify --data-dir NEW,
    and start herd serve on NEW (events in damaged pages are lost).`, d.Path)
	case events.DamageEmpty, events.DamageForeign:
		hint = fmt.Sprintf(`herd will not start on it. Check that --data-dir or --database names this fleet's log;
restore %[1]s from a backup if it was lost; or, to start a new, empty fleet here, move the file away
(herd creates a new log where there is no file).`, d.Path)
	case events.DamageNewer:
		hint = "herd will not start on it: run the herd that wrote it, or restore a backup taken before the upgrade."
	default:
		hint = "herd will not start on it: restore it from a backup."
	}
	return fmt.Errorf("%w\n%s", err, hint)
}

// logCheck says how the check of an existing SQLite file went: a check cut
// short by --database-check-timeout is a warning, for the part of the file
// it did not read was trusted unread.
func logCheck(log *zap.Logger, db Database, c events.Check, timeout time.Duration) {
	switch {
	case !c.Existing:
		log.Info("new event log created", zap.Stringer("database", db))
	case c.Complete:
		log.Info("event log checked: sound", zap.Stringer("database", db), zap.Duration("took", c.Took))
	default:
		log.Warn("event log only partly checked: PRAGMA quick_check did not finish within --database-check-timeout; the rest of the file is trusted unread (--database-check-timeout=-1 checks it whole)",
			zap.Stringer("database", db), zap.Duration("timeout", timeout), zap.Duration("took", c.Took))
	}
}
