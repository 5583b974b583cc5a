package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"herd/reconcilers/health"
	"herd/reconcilers/whatif"
)

// whatIfOptions are herd replay --what-if's: the window, and the health
// settings to replay it under.
type whatIfOptions struct {
	since  string
	health health.Config
}

// replayWhatIf replays the window of the log at dataDir (or database)
// under o's settings, reading only, and reports what would have differed.
func replayWhatIf(ctx context.Context, dataDir, database string, o whatIfOptions, out io.Writer) (err error) {
	if o.since == "" {
		return errors.New("--what-if needs --since: the window to replay, as a duration ago (24h) or an RFC 3339 time")
	}
	since, err := sinceTime(o.since, time.Now())
	if err != nil {
		return err
	}
	log, closeLog, err := openSharedLog(ctx, dataDir, database)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeLog()) }()
	rep, err := whatif.Run(ctx, log, since, o.health)
	if err != nil {
		return err
	}
	printWhatIf(out, rep, o.health)
	return nil
}

// sinceTime reads --since: RFC 3339, or a duration ago.
func sinceTime(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("--since %q: want a duration ago (24h) or an RFC 3339 time", s)
	}
	return now.Add(-d), nil
}

// printWhatIf writes the report in an operator's words.
func printWhatIf(w io.Writer, r whatif.Report, cfg health.Config) {
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	times := func(ts []time.Time) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = stamp(t)
		}
		return strings.Join(s, ", ")
	}
	if r.Events == 0 {
		fmt.Fprintf(w, "what-if from %s: the log holds no event since\n", stamp(r.Since))
		return
	}
	fmt.Fprintf(w, "what-if from %s to %s (resourceVersions %d to %d, %d events) with --node-monitor-grace-period %s --node-monitor-period %s --node-startup-grace-period %s:\n",
		stamp(r.Since), stamp(r.Until), r.From, r.To, r.Events, cfg.GracePeriod, cfg.MonitorPeriod, cfg.StartupGracePeriod)
	for _, d := range r.Downtimes {
		from := "the log's start"
		if !d.From.IsZero() {
			from = stamp(d.From)
		}
		fmt.Fprintf(w, "  the window crosses herd's downtime from %s to %s: herd's health rules did not run then, and every node had a full grace period from %s; the replay takes that as it was, not as a difference\n",
			from, stamp(d.Until), stamp(d.Until))
	}
	for _, d := range r.Nodes {
		switch {
		case len(d.Actual) == 0:
			fmt.Fprintf(w, "  node %s: did not go NotReady; would have at %s\n", d.Node, times(d.WhatIf))
		case len(d.WhatIf) == 0:
			fmt.Fprintf(w, "  node %s: went NotReady at %s; would not have\n", d.Node, times(d.Actual))
		default:
			fmt.Fprintf(w, "  node %s: went NotReady at %s; would have at %s\n", d.Node, times(d.Actual), times(d.WhatIf))
		}
	}
	for _, d := range r.Pods {
		switch {
		case d.Actual == nil:
			fmt.Fprintf(w, "  pod %s (on %s): was not evicted; would have been at %s\n", d.Pod, d.WhatIf.Node, stamp(d.WhatIf.At))
		case d.WhatIf == nil:
			fmt.Fprintf(w, "  pod %s (on %s): evicted at %s; would not have been\n", d.Pod, d.Actual.Node, stamp(d.Actual.At))
		default:
			fmt.Fprintf(w, "  pod %s (on %s): evicted at %s; would have been at %s\n", d.Pod, d.Actual.Node, stamp(d.Actual.At), stamp(d.WhatIf.At))
		}
	}
	fmt.Fprintf(w, "%d nodes and %d pods would have fared differently; %d nodes and %d pods that went NotReady or were evicted the same\n",
		len(r.Nodes), len(r.Pods), r.SameNodes, r.SamePods)
}
