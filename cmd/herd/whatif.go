package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"herd/cmd/herd/app"
	"herd/cmd/herd/whatif"
	"herd/domain"
	"herd/reconcilers/health"
	"herd/reconcilers/scheduler"
)

// whatIfOptions are the what-if's: the window, herd's settings in it, and
// the inputs changed.
type whatIfOptions struct {
	since, until string
	step         time.Duration
	// serve are herd's settings in the simulation: serve's defaults and
	// the flags given.
	serve                  app.Config
	fails, drains, budgets []string
	// evictionRetry is how often a client asks again for an eviction a
	// budget refused in the what-if; 0 asks once.
	evictionRetry time.Duration
	// showDecisions lists the first decisions made in one run and not
	// the other, this many of each, not only their count; 0 lists none.
	showDecisions int
}

func newWhatIfOptions() whatIfOptions {
	return whatIfOptions{serve: app.DefaultConfig(), evictionRetry: whatif.DefaultEvictionRetry}
}

// addWhatIfFlags binds the what-if's flags: serve's own names for the
// settings it runs herd with.
func addWhatIfFlags(f *pflag.FlagSet, o *whatIfOptions, prefix string) {
	c := &o.serve
	f.StringVar(&o.since, "since", "", prefix+"the window's start, a duration ago (24h) or an RFC 3339 time")
	f.StringVar(&o.until, "until", "", prefix+"the window's end, a duration ago or an RFC 3339 time (default: the log's newest event)")
	f.DurationVar(&o.step, "step", 0, prefix+"the longest the simulated clock moves at once between two inputs (default: from each time a reconciler waits for to the next)")
	f.DurationVar(&c.Health.GracePeriod, "node-monitor-grace-period", c.Health.GracePeriod, prefix+"silence after which a node's conditions go Unknown")
	f.DurationVar(&c.Health.MonitorPeriod, "node-monitor-period", c.Health.MonitorPeriod, prefix+"how often every node's heartbeat deadline is checked")
	f.DurationVar(&c.Health.StartupGracePeriod, "node-startup-grace-period", c.Health.StartupGracePeriod, prefix+"time a new node has to send its first heartbeat")
	f.Float64Var(&c.Health.EvictionRate, "node-eviction-rate", c.Health.EvictionRate, prefix+"nodes a second that get the NoExecute taint their Ready condition calls for (0: every node at once)")
	f.Float64Var(&c.Health.UnhealthyThreshold, "unhealthy-fleet-threshold", c.Health.UnhealthyThreshold, prefix+"share of the fleet unreachable at once (three nodes or more) at which herd withholds or slows NoExecute taints")
	f.Float64Var(&c.Health.SecondaryEvictionRate, "secondary-node-eviction-rate", c.Health.SecondaryEvictionRate, prefix+"nodes a second that get the NoExecute taint during a disruption of a fleet larger than --large-fleet-size-threshold (0: none)")
	f.IntVar(&c.Health.LargeFleetThreshold, "large-fleet-size-threshold", c.Health.LargeFleetThreshold, prefix+"fleet size above which a disruption slows NoExecute taints rather than withholding them")
	f.DurationVar(&c.Thresholds.TransitionPeriod, "pressure-transition-period", c.Thresholds.TransitionPeriod, prefix+"how long a pressure condition stays True once its signal is back under the threshold")
	f.StringSliceVar(&c.Reconcilers.Enabled, "reconcilers", c.Reconcilers.Enabled, prefix+`reconcilers to run: "*" for all, "-name" to switch one off (e.g. "*,-noexecute")`)
	f.DurationVar(&c.Scheduler.ResyncPeriod, "scheduler-resync-period", c.Scheduler.ResyncPeriod, prefix+"how often pending pods are tried again without an event")
	f.StringVar(&c.Scheduler.ScoringStrategy, "scheduler-scoring-strategy", c.Scheduler.ScoringStrategy, prefix+"how the scheduler ranks the nodes a pod fits on: LeastAllocated (spread), MostAllocated (pack) or RequestedToCapacityRatio (by --scheduler-scoring-shape)")
	f.Var(&c.Scheduler.Shape, "scheduler-scoring-shape", prefix+"RequestedToCapacityRatio's UTILIZATION=SCORE points (0=0,100=10 packs)")
	f.StringVar(&c.NodeRuntime, "node-runtime", c.NodeRuntime, prefix+`what runs herd's pods on nodes without their own agent: "mock" or "none", as herd serve ran`)
	f.DurationVar(&c.MockRuntime.ShutdownDelay, "mock-shutdown-delay", c.MockRuntime.ShutdownDelay, prefix+"how long a pod on the mock runtime takes to stop once asked")
	f.DurationVar(&c.Termination.PodGCTimeout, "pod-gc-timeout", c.Termination.PodGCTimeout, prefix+"how long past its deletion deadline a pod on an unreachable node waits before it is removed anyway")
	f.StringSliceVar(&c.IPAM.Pools, "pod-cidr", c.IPAM.Pools, prefix+"IPv4 pools pod addresses come from, as herd serve ran")
	f.StringArrayVar(&o.fails, "node-fails", nil, prefix+"NODE@TIME: the node falls silent at TIME (an RFC 3339 time or a duration ago): nothing it sent from then reaches herd; repeatable")
	f.StringArrayVar(&o.drains, "drain", nil, prefix+"NODE@TIME: an operator drains the node at TIME; repeatable")
	f.StringArrayVar(&o.budgets, "budget", nil, prefix+"NAMESPACE/NAME:minAvailable=N[@TIME] or :maxUnavailable=N (N a count or a percentage): an operator sets the PodDisruptionBudget so at TIME (default: the window's start); repeatable")
	f.DurationVar(&o.evictionRetry, "eviction-retry", o.evictionRetry, prefix+"how often a client (kubectl drain) asks again for an eviction the what-if's budget refused, until it is granted or the window ends; 0: it asks once")
	f.IntVar(&o.showDecisions, "show-decisions", 0, prefix+fmt.Sprintf("list the first N decisions by time only herd made and the first N only the what-if would have made (--show-decisions alone: %d of each): their time, type, object and reconciler; the counts are always whole", whatif.DefaultLimit))
	f.Lookup("show-decisions").NoOptDefVal = strconv.Itoa(whatif.DefaultLimit)
}

// config turns the options into the what-if's question, now being the
// time durations ago count from.
func (o whatIfOptions) config(now time.Time) (whatif.Config, error) {
	if o.since == "" {
		return whatif.Config{}, errors.New("--what-if needs --since: the window to replay, as a duration ago (24h) or an RFC 3339 time")
	}
	since, err := sinceTime("--since", o.since, now)
	if err != nil {
		return whatif.Config{}, err
	}
	cfg := whatif.Config{Since: since, Serve: o.serve, Step: o.step}
	switch {
	case o.showDecisions < 0:
		return whatif.Config{}, fmt.Errorf("--show-decisions=%d: want a positive number of decisions to list", o.showDecisions)
	case o.showDecisions > 0:
		cfg.Limit = o.showDecisions
	}
	if o.until != "" {
		if cfg.Until, err = sinceTime("--until", o.until, now); err != nil {
			return whatif.Config{}, err
		}
		if cfg.Until.Before(since) {
			return whatif.Config{}, fmt.Errorf("--until %s is before --since %s", o.until, o.since)
		}
	}
	if cfg.Step < 0 {
		return whatif.Config{}, fmt.Errorf("--step %s: want a positive duration", cfg.Step)
	}
	if o.evictionRetry < 0 {
		return whatif.Config{}, fmt.Errorf("--eviction-retry %s: want a positive duration, or 0 for a client that asks once", o.evictionRetry)
	}
	retry := o.evictionRetry
	cfg.EvictionRetry = &retry
	var errs []error
	if err := o.serve.Health.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.serve.Scheduler.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.serve.Reconcilers.Validate(app.ServeReconcilers); err != nil {
		errs = append(errs, err)
	}
	if _, err := o.serve.IPAM.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.serve.Termination.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.serve.NodeRuntime != app.NodeRuntimeMock && o.serve.NodeRuntime != app.NodeRuntimeNone {
		errs = append(errs, fmt.Errorf("--node-runtime %q: want %s or %s", o.serve.NodeRuntime, app.NodeRuntimeMock, app.NodeRuntimeNone))
	}
	for _, s := range o.fails {
		node, at, err := nodeAt("--node-fails", s, now)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.Failed = append(cfg.Failed, whatif.NodeFailure{Node: node, At: at})
	}
	for _, s := range o.drains {
		node, at, err := nodeAt("--drain", s, now)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.Drains = append(cfg.Drains, whatif.Drain{Node: node, At: at})
	}
	for _, s := range o.budgets {
		b, err := budgetChange(s, now)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cfg.Budgets = append(cfg.Budgets, b)
	}
	return cfg, errors.Join(errs...)
}

// refusedThen says what came of a refused eviction's later asks.
func refusedThen(e whatif.RefusedEviction) string {
	switch {
	case e.GrantedAt != nil:
		return fmt.Sprintf("; asked again, it would have been granted at %s, on ask %d", e.GrantedAt.UTC().Format(time.RFC3339), e.Asks)
	case e.GoneAt != nil:
		return fmt.Sprintf("; asked again, the pod had gone otherwise by %s (ask %d)", e.GoneAt.UTC().Format(time.RFC3339), e.Asks)
	case e.Asks > 1:
		return fmt.Sprintf(", and the %d asks after it too, to the window's end; the pod stays", e.Asks-1)
	}
	return "; the pod stays"
}

// budgetChange reads --budget NAMESPACE/NAME:minAvailable=N[@TIME] (or
// maxUnavailable), N a count of pods or a percentage, its time resolved
// against now.
func budgetChange(s string, now time.Time) (whatif.BudgetChange, error) {
	b, when, err := budgetFlag(s)
	if err == nil && when != "" {
		b.At, err = sinceTime("--budget", when, now)
	}
	return b, err
}

// budgetFlag reads --budget, its time (empty: the window's start) as
// given.
func budgetFlag(s string) (whatif.BudgetChange, string, error) {
	bad := func(why string) (whatif.BudgetChange, string, error) {
		return whatif.BudgetChange{}, "", fmt.Errorf("--budget %q: %s; want NAMESPACE/NAME:minAvailable=N[@TIME] or NAMESPACE/NAME:maxUnavailable=N[@TIME], N a count or a percentage (default/web:minAvailable=2, default/web:maxUnavailable=25%%@2h)", s, why)
	}
	spec, when, timed := strings.Cut(s, "@")
	ref, setting, ok := strings.Cut(spec, ":")
	if !ok {
		return bad("no setting")
	}
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" {
		return bad("the budget is not NAMESPACE/NAME")
	}
	if timed && when == "" {
		return bad("no time after @")
	}
	key, value, ok := strings.Cut(setting, "=")
	v, err := domain.ParseIntOrPercent(value)
	if !ok || err != nil || v.Value < 0 || v.Percent && v.Value > 100 {
		return bad(fmt.Sprintf("%q is not a count of pods or a percentage from 0%% to 100%%", value))
	}
	b := whatif.BudgetChange{Namespace: ns, Name: name}
	switch key {
	case "minAvailable":
		b.MinAvailable = &v
	case "maxUnavailable":
		b.MaxUnavailable = &v
	default:
		return bad(fmt.Sprintf("%q is neither minAvailable nor maxUnavailable", key))
	}
	return b, when, nil
}

// nodeAt reads NODE@TIME.
func nodeAt(flag, s string, now time.Time) (string, time.Time, error) {
	node, when, ok := strings.Cut(s, "@")
	if !ok || node == "" || when == "" {
		return "", time.Time{}, fmt.Errorf("%s %q: want NODE@TIME, the time an RFC 3339 time or a duration ago (web-01@2026-11-28T14:00:00Z, web-01@3h)", flag, s)
	}
	at, err := sinceTime(flag, when, now)
	if err != nil {
		return "", time.Time{}, err
	}
	return node, at, nil
}

// newWhatIfCmd is `herd what-if`: herd replay --what-if under its own
// name.
func newWhatIfCmd() *cobra.Command {
	var (
		dataDir, database string
		cpuProfile        string
		server            string
		o                 = newWhatIfOptions()
	)
	cmd := &cobra.Command{
		Use:   "what-if",
		Short: "Run herd's reconcilers again on a window of the log, with other settings or inputs, and say what would have differed",
		Long: `what-if runs herd's own reconcilers (health, NoExecute evictions, the
scheduler, drains, disruption budgets, Deployments, ReplicaSets,
DaemonSets, Jobs, IP addresses and the rest) again on a window of the log,
in a scratch log of its own seeded with the fleet as it stood at --since,
on a simulated clock. It feeds them what nodes, agents, kubelets and
operators sent in the window, at the times they sent it, and lets them
decide everything else again: under other settings
(--node-monitor-grace-period and the rest), with nodes that fail
(--node-fails) or drains (--drain) that did not happen. It reports every
decision that differs: nodes marked, pods evicted or placed elsewhere,
each with its causes in the simulated log. herd's own downtime is taken as
it was. It reads the database and changes nothing, safe while herd serves.

The settings are herd serve's defaults and the flags given: give those
herd serve ran with (--node-runtime, --pod-cidr, ...) for a faithful run.

With --server it asks that herd serve instead, over its API: the server
runs the what-if on its own log, with its own settings but the flags
given, within its --what-if-timeout and --what-if-max-window.`,
		Example: `  herd what-if --since 24h --node-monitor-grace-period 20s
  herd what-if --since 2026-11-28T09:00:00Z --until 2026-11-28T10:00:00Z --node-fails web-01@2026-11-28T09:12:00Z
  herd what-if --since 3h --drain web-02@2h
  herd what-if --server https://herd.example:8080 --token "$TOKEN" --since 1h --node-fails web-01@30m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if server != "" {
				return reportErr(cmd, askWhatIf(ctx, cmd, server, o, cmd.OutOrStdout()))
			}
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return reportErr(cmd, err)
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					_ = f.Close()
					return reportErr(cmd, err)
				}
				// The profile is written as it stops; a file that cannot
				// be closed has lost it, which the operator is told.
				defer func() {
					pprof.StopCPUProfile()
					if err := f.Close(); err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "herd: the CPU profile %s: %v\n", cpuProfile, err)
					}
				}()
			}
			return reportErr(cmd, replayWhatIf(ctx, dataDir, database, o, cmd.OutOrStdout()))
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "./herd-data", "directory of the SQLite event log")
	cmd.Flags().StringVar(&database, "database", "", "the event log's database, as herd serve's --database (sqlite:///path/herd.db or a PostgreSQL URL); overrides --data-dir")
	addWhatIfFlags(cmd.Flags(), &o, "")
	// Without --server the what-if runs here, on the log it opens; with
	// it, the server runs it (a herd whose database this host cannot
	// reach, or one behind a token).
	cmd.Flags().StringVar(&server, "server", "", "ask the herd serve at this URL to run the what-if on its own log (default: run it here on --data-dir or --database)")
	cmd.Flags().String("token", "", "with --server: bearer token for a herd started with --token-auth-file")
	cmd.Flags().String("certificate-authority", "", "with --server: PEM file of the CA that signed herd's TLS certificate (default: the system's)")
	// A CPU profile of the what-if, for finding where its time goes.
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the what-if to this file")
	_ = cmd.Flags().MarkHidden("cpuprofile")
	return cmd
}

// whatIfGCPercent is the garbage collector's target for a what-if run
// by herd what-if (GOGC=400): the heap may grow to five times what it
// holds live before a collection, not twice.
const whatIfGCPercent = 400

// replayWhatIf asks the what-if o of the log at dataDir (or database),
// reading only, and reports what would have differed.
func replayWhatIf(ctx context.Context, dataDir, database string, o whatIfOptions, out io.Writer) (err error) {
	cfg, err := o.config(time.Now())
	if err != nil {
		return err
	}
	log, closeLog, err := openSharedLog(ctx, dataDir, database)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeLog()) }()
	// The what-if runs alone in this process and allocates and drops at
	// every step: it collects garbage about a quarter as often as Go
	// would by itself (the hour of a 1,000-node log: ~10% less CPU,
	// ~75 MB more at its peak), unless the operator set GOGC.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(whatIfGCPercent))
	}
	rep, err := whatif.Run(ctx, log, cfg)
	if err != nil {
		return err
	}
	printWhatIf(out, rep, cfg)
	if o.showDecisions > 0 {
		printDecisions(out, rep)
	}
	return nil
}

// sinceTime reads a time flag: RFC 3339, or a duration ago.
func sinceTime(flag, s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		if t.After(now) {
			return time.Time{}, fmt.Errorf("%s %q is in the future (it is %s): a what-if asks of the past", flag, s, now.UTC().Format(time.RFC3339))
		}
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("%s %q: want a duration ago (24h) or an RFC 3339 time", flag, s)
	}
	return now.Add(-d), nil
}

// printWhatIf writes the report in an operator's words.
func printWhatIf(w io.Writer, r whatif.Report, cfg whatif.Config) {
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	// times lists the first times of a node and counts the rest, with
	// the last: a node that would have gone NotReady after each report
	// of a day would otherwise fill a screen on its own.
	times := func(ts whatif.Shown[time.Time]) string {
		s := make([]string, len(ts.First))
		for i, t := range ts.First {
			s[i] = stamp(t)
		}
		return strings.Join(s, ", ") + more(ts.More(), "at "+stamp(ts.Last))
	}
	because := func(cs []whatif.Cause) {
		for i, c := range cs {
			lead := "because"
			if i > 0 {
				lead = "   after"
			}
			fmt.Fprintf(w, "      %s %s on %s by %s at %s\n", lead, c.Type, c.Stream, c.Actor, stamp(c.At))
		}
	}
	if r.Events == 0 && len(cfg.Failed) == 0 && len(cfg.Drains) == 0 && len(cfg.Budgets) == 0 {
		fmt.Fprintf(w, "what-if from %s: the log holds no event since\n", stamp(r.Since))
		return
	}
	h := cfg.Serve.Health
	threshold := ""
	if h.UnhealthyThreshold != domain.DefaultUnhealthyThreshold {
		threshold = fmt.Sprintf(" --unhealthy-fleet-threshold %v", h.UnhealthyThreshold)
	}
	if h.EvictionRate != 0 {
		threshold += fmt.Sprintf(" --node-eviction-rate %v", h.EvictionRate)
	}
	if h.SecondaryEvictionRate != health.DefaultSecondaryEvictionRate {
		threshold += fmt.Sprintf(" --secondary-node-eviction-rate %v", h.SecondaryEvictionRate)
	}
	if h.LargeFleetThreshold != health.DefaultLargeFleetThreshold {
		threshold += fmt.Sprintf(" --large-fleet-size-threshold %d", h.LargeFleetThreshold)
	}
	if s := cfg.Serve.Scheduler.ScoringStrategy; s != "" && s != scheduler.LeastAllocated {
		threshold += " --scheduler-scoring-strategy " + s
		if s == scheduler.RequestedToCapacityRatio {
			threshold += " --scheduler-scoring-shape " + cfg.Serve.Scheduler.Shape.String()
		}
	}
	if e := cfg.EvictionRetry; e != nil && *e != whatif.DefaultEvictionRetry {
		threshold += " --eviction-retry " + e.String()
	}
	fmt.Fprintf(w, "what-if from %s to %s (resourceVersions %d to %d, %d events, %d of them from nodes and operators) with --node-monitor-grace-period %s --node-monitor-period %s --node-startup-grace-period %s%s:\n",
		stamp(r.Since), stamp(r.Until), r.From, r.To, r.Events, r.Inputs, h.GracePeriod, h.MonitorPeriod, h.StartupGracePeriod, threshold)
	for _, f := range cfg.Failed {
		fmt.Fprintf(w, "  in the what-if node %s fails at %s: nothing it sent from then reaches herd\n", f.Node, stamp(f.At))
	}
	for _, d := range cfg.Drains {
		fmt.Fprintf(w, "  in the what-if an operator drains node %s at %s\n", d.Node, stamp(d.At))
	}
	for _, b := range cfg.Budgets {
		at := b.At
		if at.IsZero() {
			at = r.Since
		}
		fmt.Fprintf(w, "  in the what-if an operator sets PodDisruptionBudget %s at %s\n", b, stamp(at))
	}
	for _, e := range r.RefusedEvictions {
		fmt.Fprintf(w, "  the eviction of pod %s %s asked for at %s would have been refused by PodDisruptionBudget %s (%s)%s\n", e.Pod, e.Actor, stamp(e.At), e.Budget, e.Cause, refusedThen(e))
	}
	if r.Orphans > 0 {
		fmt.Fprintf(w, "  %d inputs about pods herd's workloads created but the what-if did not were left out\n", r.Orphans)
	}
	for _, d := range r.Downtimes {
		from := "the log's start"
		if !d.From.IsZero() {
			from = stamp(d.From)
		}
		fmt.Fprintf(w, "  the window crosses herd's downtime from %s to %s: herd's reconcilers did not run then, and every node had a full grace period from %s; the what-if takes that as it was, not as a difference\n",
			from, stamp(d.Until), stamp(d.Until))
	}
	if c := r.Cut; c != nil {
		fmt.Fprintf(w, "  herd's log ends at %s, more than a grace period before the window's end asked for, %s: herd recorded nothing after it (it was down, or is stopped), so the what-if ends at %s rather than take herd's silence for the fleet's\n",
			stamp(c.LogEnd), stamp(c.Asked), stamp(r.Until))
	}
	for _, d := range r.Nodes {
		actual, whatIf := d.Times()
		switch {
		case actual.Count == 0:
			fmt.Fprintf(w, "  node %s: did not go NotReady; would have at %s\n", d.Node, times(whatIf))
		case whatIf.Count == 0:
			fmt.Fprintf(w, "  node %s: went NotReady at %s; would not have\n", d.Node, times(actual))
		default:
			fmt.Fprintf(w, "  node %s: went NotReady at %s; would have at %s\n", d.Node, times(actual), times(whatIf))
		}
		because(d.Causes)
	}
	eviction := func(e whatif.Eviction) string {
		return fmt.Sprintf("from %s at %s by %s", orNone(e.Node), stamp(e.At), strings.TrimPrefix(e.By, "system:herd:"))
	}
	evictions := func(es whatif.Shown[whatif.Eviction]) string {
		s := make([]string, len(es.First))
		for i, e := range es.First {
			s[i] = eviction(e)
		}
		return strings.Join(s, ", ") + more(es.More(), eviction(es.Last))
	}
	for _, d := range r.Pods {
		actual, whatIf := d.Evictions()
		switch {
		case actual.Count == 0:
			fmt.Fprintf(w, "  pod %s: was not evicted; would have been %s\n", d.Pod, evictions(whatIf))
		case whatIf.Count == 0:
			fmt.Fprintf(w, "  pod %s: evicted %s; would not have been\n", d.Pod, evictions(actual))
		default:
			fmt.Fprintf(w, "  pod %s: evicted %s; would have been %s\n", d.Pod, evictions(actual), evictions(whatIf))
		}
		because(d.Causes)
	}
	for _, d := range r.Placements {
		fmt.Fprintf(w, "  pod %s: placed on %s; would have been on %s\n", d.Pod, orNone(strings.Join(d.Actual, ", ")), orNone(strings.Join(d.WhatIf, ", ")))
		because(d.Causes)
	}
	for _, d := range r.Workloads {
		fmt.Fprintf(w, "  %s: below its desired availability for %s; would have been for %s\n", d.Workload, d.Actual, d.WhatIf)
		because(d.Causes)
	}
	fmt.Fprintf(w, "%d decisions of herd's reconcilers the same; %d only herd made, %d only the what-if would have made\n", r.Same, r.MissingCount, r.ExtraCount)
	fmt.Fprintf(w, "%d nodes and %d pods would have fared differently; %d nodes and %d pods that went NotReady or were evicted the same\n",
		len(r.Nodes), len(r.Pods)+len(r.Placements), r.SameNodes(), r.SamePods())
}

// printDecisions lists the decisions one run made and the other did not,
// oldest first, as many as the report holds: what an operator reads to
// see why the counts differ.
func printDecisions(w io.Writer, r whatif.Report) {
	list := func(title string, ds []whatif.Decision, count int) {
		fmt.Fprintf(w, "%s (%d):\n", title, count)
		for _, d := range ds {
			fmt.Fprintf(w, "  %s %s on %s by %s\n", d.At.UTC().Format(time.RFC3339), d.Type, d.Stream, d.Actor)
			for i, c := range d.Causes {
				lead := "because"
				if i > 0 {
					lead = "   after"
				}
				fmt.Fprintf(w, "      %s %s on %s by %s at %s\n", lead, c.Type, c.Stream, c.Actor, c.At.UTC().Format(time.RFC3339))
			}
		}
		if more := count - len(ds); more > 0 {
			fmt.Fprintf(w, "  %d more not shown (--show-decisions=N lists the first N)\n", more)
		}
	}
	list("decisions only herd made", r.Missing, r.MissingCount)
	list("decisions only the what-if would have made", r.Extra, r.ExtraCount)
}

// more says how many more there are than listed, and the last of them.
func more(n int, last string) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more, the last %s", n, last)
}

func orNone(s string) string {
	if s == "" {
		return "no node"
	}
	return s
}
