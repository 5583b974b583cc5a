package main

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	store, closeLog, err := openOfflineLog(ctx, dataDir, "herd vacuum", "stop it first: vacuum rewrites the whole database file")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeLog()) }()
	path := filepath.Join(dataDir, events.DatabaseFileName)
	before, err := store.FileSize(ctx)
	if err != nil {
		return err
	}
	if err := store.Vacuum(ctx); err != nil {
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
