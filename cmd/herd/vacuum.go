package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"herd/events"
)

func newVacuumCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "vacuum",
		Short: "Shrink the database file to what the log and views hold now",
		Long: `vacuum rewrites the SQLite database so that the file holds no free pages.

herd never needs it: pages freed by the heartbeat retention policy are reused
by new events, so the file stops growing once the retention window is full.
Run it after lowering --heartbeat-retention, or after a first compaction of a
log that grew without one, to give the space back to the file system. It
needs as much free disk as the database itself, and refuses to start while
herd serve (or a rebuild) holds the data directory's lock: stop herd serve
first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return reportErr(cmd, vacuum(cmd.Context(), dataDir, cmd.OutOrStdout()))
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "./herd-data", "directory of the SQLite event log")
	return cmd
}

func vacuum(ctx context.Context, dataDir string, out io.Writer) (err error) {
	path := filepath.Join(dataDir, "herd.db")
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("--data-dir %s: no event log there: %w", dataDir, err)
	}
	lock, err := events.LockDataDir(dataDir, "herd vacuum")
	if err != nil {
		return refuseLocked(err, "stop it first: vacuum rewrites the whole database file")
	}
	// Released after the store has closed: the deferred close below runs
	// first.
	defer func() { err = errors.Join(err, lock.Release()) }()
	store, err := events.Open(ctx, events.Config{Path: path}, nil)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	before, err := store.FileSize(ctx)
	if err != nil {
		return err
	}
	if _, err := store.DB().ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("vacuum %s: %w", path, err)
	}
	after, err := store.FileSize(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %s -> %s (%s were free pages)\n", path, mib(before.Bytes), mib(after.Bytes), mib(before.FreeBytes))
	return nil
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
