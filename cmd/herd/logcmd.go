package main

import (
	"context"
	"fmt"
	"net/url"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"herd/adapters/httpapi"
)

// followInterval is how often `herd log -f` asks for events after the last
// it printed: the audit API has no watch, and a second is as live as an
// operator reading a terminal needs.
const followInterval = time.Second

// logFlags are herd log's settings.
type logFlags struct {
	server, output, stream, types, actor, causedBy, since, sinceTime, until string
	after                                                                   int64
	limit, tail                                                             int
	follow                                                                  bool
}

func newLogCmd() *cobra.Command {
	var lf logFlags
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Read the audit log: every event, who caused it and when",
		Long: `Read the audit log: every event, who caused it and when.

--since 5m shows the last five minutes (as kubectl logs --since), --since-time
an RFC 3339 time; --tail 20 the newest twenty events; -f goes on printing
events as they are recorded until Ctrl-C. --caused-by ID shows what the
event ID led to: the events recorded because of it, and theirs, and so on
(what a drain or a command set off).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A filter given empty (--caused-by "$ID" with ID unset) is a
			// mistake, not a wish for the whole log.
			for _, name := range []string{"stream", "type", "actor", "caused-by", "since", "since-time", "until"} {
				if f := cmd.Flags().Lookup(name); f.Changed && f.Value.String() == "" {
					return reportErr(cmd, configError{fmt.Errorf("--%s is empty: it takes a value (%s); leave it out to read every event", name, f.Usage)})
				}
			}
			q, err := lf.query(time.Now()) // the operator's clock: --since 5m is five minutes before they asked
			if err != nil {
				return reportErr(cmd, configError{err})
			}
			c, err := newClient(cmd, lf.server)
			if err != nil {
				return reportErr(cmd, err)
			}
			if !lf.follow {
				return reportErr(cmd, printLogPage(cmd, c, q, lf.output, lf.moreHint(q)))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return reportErr(cmd, followLog(ctx, cmd, c, q, lf.output))
		},
	}
	addServerFlag(cmd, &lf.server)
	f := cmd.Flags()
	addOutputFlag(f, &lf.output, outputJSON, outputYAML)
	f.StringVar(&lf.stream, "stream", "", "one stream (node/web-01), or every stream under a prefix ending in / (node/)")
	f.StringVar(&lf.types, "type", "", "event types, comma-separated (NodeRegistered,NodeConditionChanged)")
	f.StringVar(&lf.actor, "actor", "", "only events made by this user, node or reconciler (alice, system:node:web-01, system:herd:health)")
	f.StringVar(&lf.causedBy, "caused-by", "", "only the events this event id led to, directly or through others")
	f.StringVar(&lf.since, "since", "", "only events of this last while, such as 5m or 2h (an RFC 3339 time works too)")
	f.StringVar(&lf.sinceTime, "since-time", "", "only events recorded at or after this RFC 3339 time")
	f.StringVar(&lf.until, "until", "", "only events recorded before this RFC 3339 time")
	f.Int64Var(&lf.after, "after", 0, "only events after this log position")
	f.IntVar(&lf.limit, "limit", 0, "at most this many events (default 500)")
	f.IntVar(&lf.tail, "tail", 0, "only the newest this many events")
	f.BoolVarP(&lf.follow, "follow", "f", false, "go on printing events as they are recorded, until Ctrl-C")
	return cmd
}

// query is the audit API's query for these flags, --since measured back
// from now.
func (lf logFlags) query(now time.Time) (url.Values, error) {
	q := url.Values{}
	for k, v := range map[string]string{"stream": lf.stream, "type": lf.types, "actor": lf.actor, "causedBy": lf.causedBy, "until": lf.until} {
		if v != "" {
			q.Set(k, v)
		}
	}
	switch {
	case lf.since != "" && lf.sinceTime != "":
		return nil, fmt.Errorf("--since %q and --since-time %q: give one of them", lf.since, lf.sinceTime)
	case lf.since != "":
		if d, err := time.ParseDuration(lf.since); err == nil && d >= 0 {
			q.Set("since", now.Add(-d).UTC().Format(time.RFC3339Nano))
		} else if _, err := time.Parse(time.RFC3339Nano, lf.since); err == nil {
			q.Set("since", lf.since)
		} else {
			return nil, fmt.Errorf("--since %q: want a duration such as 5m or 2h (or --since-time 2026-01-02T15:04:05Z)", lf.since)
		}
	case lf.sinceTime != "":
		if _, err := time.Parse(time.RFC3339Nano, lf.sinceTime); err != nil {
			return nil, fmt.Errorf("--since-time %q: want an RFC 3339 time such as 2026-01-02T15:04:05Z", lf.sinceTime)
		}
		q.Set("since", lf.sinceTime)
	}
	if lf.after < 0 {
		return nil, fmt.Errorf("--after %d: want a log position, 0 or more", lf.after)
	}
	if lf.after > 0 {
		q.Set("after", strconv.FormatInt(lf.after, 10))
	}
	if lf.limit < 0 {
		return nil, fmt.Errorf("--limit %d: want 1 or more", lf.limit)
	}
	if lf.limit > 0 {
		q.Set("limit", strconv.Itoa(lf.limit))
	}
	switch {
	case lf.tail < 0:
		return nil, fmt.Errorf("--tail %d: want 1 or more", lf.tail)
	case lf.tail > 0 && lf.limit > 0:
		return nil, fmt.Errorf("--tail %d and --limit %d: give one of them", lf.tail, lf.limit)
	case lf.tail > 0:
		q.Set("tail", strconv.Itoa(lf.tail))
	}
	return q, nil
}

// moreHint is the command that reads the page after position after: the
// same filters (the resolved --since as --since-time, so that it still
// starts where this page did), from there on.
func (lf logFlags) moreHint(q url.Values) func(after string) string {
	return func(after string) string {
		args := []string{"herd", "log"}
		if lf.server != "" {
			args = append(args, "--server", lf.server)
		}
		for _, f := range []struct{ flag, value string }{
			{"--stream", lf.stream}, {"--type", lf.types}, {"--actor", lf.actor}, {"--caused-by", lf.causedBy}, {"--since-time", q.Get("since")}, {"--until", lf.until},
		} {
			if f.value != "" {
				args = append(args, f.flag, f.value)
			}
		}
		if lf.limit > 0 {
			args = append(args, "--limit", strconv.Itoa(lf.limit))
		}
		if lf.output != "" {
			args = append(args, "-o", lf.output)
		}
		return strings.Join(append(args, "--after", after), " ")
	}
}

// printLogPage prints one page of the log, and the command that reads the
// next.
func printLogPage(cmd *cobra.Command, c *client, q url.Values, output string, more func(after string) string) error {
	var list httpapi.AuditEventList
	if err := c.get(cmd.Context(), "/apis/herd.dev/v1/auditevents", q, &list); err != nil {
		return err
	}
	if done, err := printStructured(cmd.OutOrStdout(), output, list); done {
		return err
	}
	if t := list.Thinned; t != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", t.Message)
	}
	var table logTable
	table.print(cmd.OutOrStdout(), list.Items)
	if list.Metadata.Continue != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "more: %s\n", more(list.Metadata.Continue))
	}
	return nil
}

// followLog prints the events q matches and then, every followInterval,
// those recorded since, until ctx ends (Ctrl-C), which is not an error.
// Live rows keep the columns of the first page, so they line up with its
// header.
func followLog(ctx context.Context, cmd *cobra.Command, c *client, q url.Values, output string) error {
	var table logTable
	for {
		var list httpapi.AuditEventList
		if err := c.get(ctx, "/apis/herd.dev/v1/auditevents", q, &list); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for _, e := range list.Items {
			if _, err := printStructured(cmd.OutOrStdout(), output, e); err != nil {
				return err
			}
		}
		if output == "" {
			table.print(cmd.OutOrStdout(), list.Items)
		}
		if n := len(list.Items); n > 0 {
			q.Set("after", strconv.FormatInt(list.Items[n-1].Position, 10))
		}
		// Only the first request is a tail; after it, every new event.
		q.Del("tail")
		if list.Metadata.Continue != "" {
			continue // a full page: read on at once
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(followInterval):
		}
	}
}
