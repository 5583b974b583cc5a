package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"herd/cmd/herd/app"
	"herd/events"
	"herd/projections"
	"herd/projections/watch"
	"herd/reconcilers"
)

func newMigrateCmd() *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "migrate --from sqlite:///path/herd.db --to postgres://user@host/db",
		Short: "Move the event log from SQLite to an empty PostgreSQL database, and build and verify the views there",
		Long: `migrate moves a fleet from SQLite to PostgreSQL. It copies every event of
the log as stored — position, stream, version, type, recorded time, payload
and metadata — so that every resourceVersion a client holds means the same
afterwards (positions the heartbeat retention policy deleted stay unused),
then builds the views on PostgreSQL from the copied log and checks them
against a second rebuild, as replay --verify does. Progress goes to stderr
when it is a terminal; what was done, to stdout. Then start herd serve with
--database set to the same PostgreSQL URL.

It holds the SQLite data directory's lock while it runs, and refuses to
start while herd serve (or a replay or vacuum) holds it: stop herd serve
first. The SQLite file is left where it is.

It refuses a PostgreSQL database that already holds a log, even of one
event (herd serve writes one as soon as it starts on a database), and
changes nothing there. The copy is one transaction: a migrate
that fails or is interrupted while copying leaves no log behind, and can
be run again. One that fails after the copy says so; build the views then
with herd replay --database.

When retention has thinned the log, its compaction point comes along: a
watch or list at a resourceVersion older than that point is refused with
410 Expired on PostgreSQL as it was on SQLite. migrate says which point
that is. Where the reconcilers stood in the log comes along too, so that
they carry on from there.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, dst, err := migrateFlags(from, to)
			if err != nil {
				return reportErr(cmd, configError{err})
			}
			// Ctrl-C or SIGTERM ends the copy through its context, which
			// rolls it back.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return reportErr(cmd, migrate(ctx, src, dst, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the SQLite event log to copy, sqlite:///path/to/herd.db (herd serve's --database)")
	cmd.Flags().StringVar(&to, "to", "", "the empty PostgreSQL database to copy it into, a URL in libpq's form (postgres://user@host/db)")
	return cmd
}

// migrateFlags checks --from and --to: a SQLite file, and a PostgreSQL
// database.
func migrateFlags(from, to string) (src, dst app.Database, err error) {
	const wantFrom, wantTo = "want the SQLite log to copy, sqlite:///path/to/herd.db", "want the PostgreSQL database to copy it into, postgres://user@host/db"
	var errs []error
	switch src, err = app.ParseDatabase(from, ""); {
	case from == "":
		errs = append(errs, fmt.Errorf("--from is required: %s", wantFrom))
	case err != nil:
		errs = append(errs, fmt.Errorf("--from %q: %s", from, wantFrom))
	case src.Engine != events.EngineSQLite:
		errs = append(errs, fmt.Errorf("--from %s is PostgreSQL: %s", src, wantFrom))
	}
	switch dst, err = app.ParseDatabase(to, ""); {
	case to == "":
		errs = append(errs, fmt.Errorf("--to is required: %s", wantTo))
	case err != nil:
		errs = append(errs, fmt.Errorf("--to %q: %s", to, wantTo))
	case dst.Engine != events.EnginePostgres:
		errs = append(errs, fmt.Errorf("--to %s is SQLite: %s", dst, wantTo))
	}
	return src, dst, errors.Join(errs...)
}

// migrate copies the log of src into dst, then builds and verifies the
// views there.
func migrate(ctx context.Context, src, dst app.Database, out, errOut io.Writer) (err error) {
	store, closeLog, err := openOfflineFile(ctx, src.Path, "--from "+src.String(), "herd migrate",
		"stop it first: migrate copies the log as it stands")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeLog()) }()
	log, err := events.OpenPostgres(ctx, dst.URL)
	if err != nil {
		return fmt.Errorf("--to %s: %w", dst, err)
	}
	defer func() { err = errors.Join(err, log.Close()) }()

	stats, err := events.CopyLog(ctx, store, log, progressPrinterOf(errOut, copyWords))
	if errors.Is(err, events.ErrLogNotEmpty) {
		return fmt.Errorf("--to %s: %w; nothing was copied: give migrate a new, empty database "+
			"(herd serve writes its namespaces to a log as soon as it starts on one)", dst, err)
	}
	if err != nil {
		return fmt.Errorf("nothing was copied to %s: %w", dst, err)
	}
	fmt.Fprintf(out, "copied %d events up to position %d from %s to %s in %s (%.0f events/s)\n",
		stats.Events, stats.Head, src, dst, stats.Took.Round(time.Millisecond), perSecond(stats.Events, stats.Took))
	if err := copyReconcilersPosition(ctx, store.Log(), log, out); err != nil {
		return err
	}
	reportCompaction(out, store.Compaction())

	if err := buildViews(ctx, log, out, errOut); err != nil {
		return fmt.Errorf("%w\nthe log is copied to %s but its views are not built and verified: run herd replay --database with that URL", err, dst)
	}
	return nil
}

// buildViews builds the views from the copied log and verifies them.
func buildViews(ctx context.Context, log events.Log, out, errOut io.Writer) error {
	if err := projections.Migrate(ctx, log); err != nil {
		return err
	}
	stats, err := projections.Rebuild(ctx, log, projections.RebuildOptions{Progress: progressPrinter(errOut), Snapshots: projections.SnapshotPolicy{
		Every: watch.DefaultConfig().SnapshotEvery, Interval: watch.DefaultConfig().SnapshotInterval,
	}})
	if err := reportRebuild(out, stats, err); err != nil {
		return err
	}
	diff, stats, err := projections.VerifyInPlace(ctx, log, projections.RebuildOptions{Progress: progressPrinter(errOut)})
	return reportVerify(ctx, out, log, diff, stats, err)
}

// copyReconcilersPosition carries where the reconcilers' dispatcher stood
// in the log over to the copy, at the same position, so that on
// PostgreSQL they carry on from there rather than read the log again
// from its start.
func copyReconcilersPosition(ctx context.Context, from, to events.Log, out io.Writer) error {
	pos, err := from.GroupPosition(ctx, reconcilers.ConsumerGroup, reconcilers.LegacyGroupPrefix)
	if err != nil {
		return fmt.Errorf("the log is copied, but not where the reconcilers stood in it: %w", err)
	}
	if err := to.SaveGroupPosition(ctx, reconcilers.ConsumerGroup, pos); err != nil {
		return fmt.Errorf("the log is copied, but not where the reconcilers stood in it: %w", err)
	}
	fmt.Fprintf(out, "copied where the reconcilers stood in the log: position %d\n", pos)
	return nil
}

// reportCompaction tells the operator which compaction point the copy
// carried, if retention had thinned the log.
func reportCompaction(out io.Writer, c events.Compaction) {
	if c.Through > 0 || c.Deleted > 0 {
		fmt.Fprintf(out, "copied the compaction point, position %d (retention deleted %d heartbeats and lease renewals before it): "+
			"a watch or list from before it gets 410 Expired on PostgreSQL too\n", c.Through, c.Deleted)
	}
}

func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
