package app

import (
	"errors"
	"fmt"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"herd/events"
)

// lockDataDir takes the data directory's lock for herd serve until the
// app stops, so that an offline rebuild or a vacuum cannot rewrite the
// database under it, and so that serve does not start on a database a
// rebuild is rewriting. Appended before the store's own stop hook, the
// release runs after the store has closed.
func lockDataDir(lc fx.Lifecycle, dir string, log *zap.Logger) error {
	lock, err := events.LockDataDir(dir, "herd serve")
	if err != nil {
		if _, ok := errors.AsType[*events.LockedError](err); ok {
			return fmt.Errorf("--data-dir %s: %w; herd serve starts once it has finished or been stopped", dir, err)
		}
		return fmt.Errorf("--data-dir %s: %w", dir, err)
	}
	log.Debug("data directory locked", zap.String("lock", dir+"/"+events.LockFileName))
	lc.Append(fx.StopHook(lock.Release))
	return nil
}
