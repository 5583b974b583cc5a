package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newSnapshotsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshots",
		Short: "Manage the snapshots herd keeps to fold the past quickly",
		Long: `herd serve snapshots every object into the database now and then
(--snapshot-every, --snapshot-interval), so that its state at an old moment
folds from the newest snapshot before it instead of from its first event:
lists of the past (herd node list --at, ?asOf=, resourceVersionMatch=Exact)
and watches resumed after a restart. Snapshots are derived from the log:
dropping them changes no answer, only how long the past takes to fold, and
herd replay takes them afresh.`,
	}
	var dataDir, database string
	drop := &cobra.Command{
		Use:   "drop",
		Short: "Delete every snapshot (safe while herd serves; the past then folds from the log alone)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return reportErr(cmd, dropSnapshots(cmd.Context(), dataDir, database, cmd.OutOrStdout()))
		},
	}
	drop.Flags().StringVar(&dataDir, "data-dir", "./herd-data", "directory of the SQLite event log")
	drop.Flags().StringVar(&database, "database", "", "the event log's database, as herd serve's --database; overrides --data-dir")
	cmd.AddCommand(drop)
	return cmd
}

func dropSnapshots(ctx context.Context, dataDir, database string, out io.Writer) (err error) {
	log, closeLog, err := openSharedLog(ctx, dataDir, database)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeLog()) }()
	n, err := log.DropSnapshots(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "dropped %d snapshots\n", n)
	return nil
}
