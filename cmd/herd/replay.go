package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"herd/events"
	"herd/projections"
)

func newReplayCmd() *cobra.Command {
	var (
		dataDir string
		verify  bool
	)
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Rebuild every view from the event log, or verify the live views against a rebuild",
		Long: `replay rebuilds the node view and the node timelines from the whole event
log. It holds the data directory's lock (herd.lock) while it runs, and
refuses to start while herd serve, or another rebuild, holds it: stop herd
serve first.

With --verify it changes nothing: it rebuilds into a scratch copy of the
database (safe while herd serves), compares the rebuilt views with the live
ones and exits non-zero, naming the first difference, when they differ.
It first checks that the data directory's filesystem has room for the
copy (about twice the log), and removes the copy however it ends, Ctrl-C
included.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Ctrl-C or SIGTERM ends the rebuild through its context, so
			// that the scratch copy is removed on the way out.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := replay(ctx, dataDir, verify, cmd.OutOrStdout(), cmd.ErrOrStderr())
			return reportErr(cmd, err)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "./herd-data", "directory of the SQLite event log")
	cmd.Flags().BoolVar(&verify, "verify", false, "compare a rebuild with the live views instead of replacing them")
	return cmd
}

func replay(ctx context.Context, dataDir string, verify bool, out, errOut io.Writer) (err error) {
	role := "herd replay"
	if verify {
		role = "" // a verify reads a snapshot: safe while herd serves
	}
	store, closeLog, err := openOfflineLog(ctx, dataDir, role, "stop it first, or use --verify, which is safe while serving")
	if err != nil {
		return err
	}
	// Closing checkpoints the rebuild's WAL into the database file: a
	// failure there is the operator's to know.
	defer func() { err = errors.Join(err, closeLog()) }()
	if err := projections.Migrate(ctx, store.Log()); err != nil {
		return err
	}
	opts := projections.RebuildOptions{Progress: progressPrinter(errOut)}
	if !verify {
		stats, err := projections.Rebuild(ctx, store.Log(), opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "rebuilt the views from %d events up to position %d in %s (%.0f events/s)\n",
			stats.Events, stats.Head, stats.Took.Round(time.Millisecond), rate(stats))
		return nil
	}
	scratch := filepath.Join(dataDir, fmt.Sprintf("verify-%d.db", os.Getpid()))
	diff, stats, err := projections.Verify(ctx, store, scratch, events.Config{}, opts)
	if err != nil {
		return err
	}
	if diff != nil {
		fmt.Fprintln(out, diff.String())
		return errors.New("the live views differ from a rebuild of the log")
	}
	fmt.Fprintf(out, "the live views equal a rebuild of %d events up to position %d\n", stats.Events, stats.Head)
	return nil
}

func rate(s projections.RebuildStats) float64 {
	if s.Took <= 0 {
		return 0
	}
	return float64(s.Events) / s.Took.Seconds()
}
