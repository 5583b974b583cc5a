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

	"herd/cmd/herd/app"
	"herd/events"
	"herd/projections"
	"herd/projections/watch"
)

func newReplayCmd() *cobra.Command {
	var (
		dataDir, database string
		verify            bool
		whatIf            bool
		wi                = newWhatIfOptions()
		snaps             = projections.SnapshotPolicy{Every: watch.DefaultConfig().SnapshotEvery, Interval: watch.DefaultConfig().SnapshotInterval}
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
included.

With --database on PostgreSQL there is no lock and no file: replay
rebuilds in one transaction (stop every herd serve replica first, or their
writes wait for it), and --verify rebuilds into temporary tables at one
snapshot of the log and compares, changing nothing, while replicas serve.

A rebuild also takes the log's snapshots afresh, as herd serve takes them
(--snapshot-every, --snapshot-interval), so that a log written before
herd took snapshots folds its past quickly too; --verify checks each
snapshot against its stream folded from the log.

With --what-if it changes nothing either: it runs herd's own reconcilers
again on the window since --since, in a scratch log seeded with the fleet
as it stood then, fed what nodes and operators sent at the times they sent
it, under other settings (--node-monitor-grace-period and the rest) or
other inputs (--node-fails, --drain), and reports every decision that
would have differed: nodes marked, pods evicted or placed elsewhere, each
with its causes. It reads the database, safe while herd serves. herd
what-if is the same under its own name.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Ctrl-C or SIGTERM ends the rebuild through its context, so
			// that the scratch copy is removed on the way out.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if whatIf {
				if verify {
					return reportErr(cmd, errors.New("--what-if and --verify do different things: give one"))
				}
				return reportErr(cmd, replayWhatIf(ctx, dataDir, database, wi, cmd.OutOrStdout()))
			}
			if database != "" {
				return reportErr(cmd, replayDatabase(ctx, dataDir, database, verify, snaps, cmd.OutOrStdout(), cmd.ErrOrStderr()))
			}
			err := replay(ctx, dataDir, verify, snaps, cmd.OutOrStdout(), cmd.ErrOrStderr())
			return reportErr(cmd, err)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "./herd-data", "directory of the SQLite event log")
	cmd.Flags().StringVar(&database, "database", "", "the event log's database, as herd serve's --database (sqlite:///path/herd.db or a PostgreSQL URL); overrides --data-dir")
	cmd.Flags().BoolVar(&verify, "verify", false, "compare a rebuild with the live views instead of replacing them")
	cmd.Flags().BoolVar(&whatIf, "what-if", false, "replay --since under other health settings and report what would have differed; changes nothing")
	addWhatIfFlags(cmd.Flags(), &wi, "with --what-if: ")
	cmd.Flags().IntVar(&snaps.Every, "snapshot-every", snaps.Every, "snapshot an object after this many of its events (-1: take none, and keep those there)")
	cmd.Flags().DurationVar(&snaps.Interval, "snapshot-interval", snaps.Interval, "also snapshot an object at its first event this long after its last snapshot")
	return cmd
}

func replay(ctx context.Context, dataDir string, verify bool, snaps projections.SnapshotPolicy, out, errOut io.Writer) (err error) {
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
		opts.Snapshots = snaps
		stats, err := projections.Rebuild(ctx, store.Log(), opts)
		return reportRebuild(out, stats, err)
	}
	scratch := filepath.Join(dataDir, fmt.Sprintf("verify-%d.db", os.Getpid()))
	diff, stats, err := projections.Verify(ctx, store, scratch, events.Config{}, opts)
	return reportVerify(ctx, out, store.Log(), diff, stats, err)
}

// replayDatabase is replay for --database: on SQLite, replay in the
// file's directory; on PostgreSQL, a rebuild or an in-place verify.
func replayDatabase(ctx context.Context, dataDir, database string, verify bool, snaps projections.SnapshotPolicy, out, errOut io.Writer) (err error) {
	db, err := app.ParseDatabase(database, dataDir)
	if err != nil {
		return err
	}
	if db.Engine == events.EngineSQLite {
		if filepath.Base(db.Path) != events.DatabaseFileName {
			return fmt.Errorf("--database %s: replay works on a data directory's %s", db, events.DatabaseFileName)
		}
		return replay(ctx, filepath.Dir(db.Path), verify, snaps, out, errOut)
	}
	log, err := events.OpenPostgres(ctx, db.URL)
	if err != nil {
		return fmt.Errorf("--database %s: %w", db, err)
	}
	defer func() { err = errors.Join(err, log.Close()) }()
	if err := projections.Migrate(ctx, log); err != nil {
		return err
	}
	opts := projections.RebuildOptions{Progress: progressPrinter(errOut)}
	if !verify {
		opts.Snapshots = snaps
		stats, err := projections.Rebuild(ctx, log, opts)
		return reportRebuild(out, stats, err)
	}
	diff, stats, err := projections.VerifyInPlace(ctx, log, opts)
	return reportVerify(ctx, out, log, diff, stats, err)
}

// reportRebuild tells the operator what a rebuild did.
func reportRebuild(out io.Writer, stats projections.RebuildStats, err error) error {
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "rebuilt the views from %d events up to position %d in %s (%.0f events/s)\n",
		stats.Events, stats.Head, stats.Took.Round(time.Millisecond), rate(stats))
	return nil
}

// reportVerify tells the operator what a verify found, checks the
// log's snapshots once the views are equal, and fails when the views or
// a snapshot differ.
func reportVerify(ctx context.Context, out io.Writer, log events.Log, diff *projections.Difference, stats projections.RebuildStats, err error) error {
	if err != nil {
		return err
	}
	if diff != nil {
		fmt.Fprintln(out, diff.String())
		return errors.New("the live views differ from a rebuild of the log")
	}
	fmt.Fprintf(out, "the live views equal a rebuild of %d events up to position %d\n", stats.Events, stats.Head)
	n, diff, err := projections.VerifySnapshots(ctx, log)
	if err != nil {
		return err
	}
	if diff != nil {
		fmt.Fprintln(out, diff.String())
		return errors.New("a snapshot differs from its stream folded from the log")
	}
	fmt.Fprintf(out, "the %d snapshots equal their streams folded from the log\n", n)
	return nil
}

func rate(s projections.RebuildStats) float64 {
	if s.Took <= 0 {
		return 0
	}
	return float64(s.Events) / s.Took.Seconds()
}
