package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"herd/events"
)

// openOfflineLog opens the event log in dataDir for a command that works
// on the database itself (replay, vacuum). With a role it first takes the
// data directory's lock, and while another herd holds it refuses with the
// holder's name and hint. closeLog closes the store, then gives the lock
// back.
func openOfflineLog(ctx context.Context, dataDir, role, hint string) (store *events.Store, closeLog func() error, err error) {
	return openOfflineFile(ctx, filepath.Join(dataDir, events.DatabaseFileName), "--data-dir "+dataDir, role, hint)
}

// openOfflineFile is openOfflineLog for the SQLite file at path, which
// errors name as flag. The lock is that of the file's directory, the one
// herd serve --database sqlite://path takes.
func openOfflineFile(ctx context.Context, path, flag, role, hint string) (store *events.Store, closeLog func() error, err error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("%s: no event log there: %w", flag, err)
	}
	release := func() error { return nil }
	if role != "" {
		lock, err := events.LockDataDir(filepath.Dir(path), role)
		if err != nil {
			if _, ok := errors.AsType[*events.LockedError](err); ok {
				return nil, nil, fmt.Errorf("%w; %s", err, hint)
			}
			return nil, nil, err
		}
		release = lock.Release
	}
	store, err = events.Open(ctx, events.Config{Path: path}, nil)
	if err != nil {
		return nil, nil, errors.Join(err, release())
	}
	return store, func() error { return errors.Join(store.Close(), release()) }, nil
}
