package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"herd/cmd/herd/app"
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
		return nil, nil, errors.Join(app.ExplainDamage(err), release())
	}
	return store, func() error { return errors.Join(store.Close(), release()) }, nil
}

// openSharedLog opens the event log --database names (a PostgreSQL URL,
// or a SQLite file), else the one in dataDir, without taking the data
// directory's lock: for what is safe beside a running herd (a what-if,
// dropping snapshots). closeLog releases it.
func openSharedLog(ctx context.Context, dataDir, database string) (log events.Log, closeLog func() error, err error) {
	if database != "" {
		db, err := app.ParseDatabase(database, dataDir)
		if err != nil {
			return nil, nil, err
		}
		if db.Engine == events.EnginePostgres {
			pg, err := events.OpenPostgres(ctx, db.URL)
			if err != nil {
				return nil, nil, fmt.Errorf("--database %s: %w", db, err)
			}
			return pg, pg.Close, nil
		}
		store, closeLog, err := openOfflineFile(ctx, db.Path, "--database "+db.String(), "", "")
		if err != nil {
			return nil, nil, err
		}
		return store.Log(), closeLog, nil
	}
	store, closeLog, err := openOfflineLog(ctx, dataDir, "", "")
	if err != nil {
		return nil, nil, err
	}
	return store.Log(), closeLog, nil
}
