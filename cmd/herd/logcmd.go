package main

import (
	"fmt"
	"net/url"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"herd/adapters/httpapi"
)

func newLogCmd() *cobra.Command {
	var (
		server, output, stream, types, since, until string
		after                                       int64
		limit                                       int
	)
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Read the audit log: every event, who caused it and when",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			q := url.Values{}
			for k, v := range map[string]string{"stream": stream, "type": types, "since": since, "until": until} {
				if v != "" {
					q.Set(k, v)
				}
			}
			if after > 0 {
				q.Set("after", strconv.FormatInt(after, 10))
			}
			if limit > 0 {
				q.Set("limit", strconv.Itoa(limit))
			}
			var list httpapi.AuditEventList
			if err := c.get(cmd.Context(), "/apis/herd.dev/v1/auditevents", q, &list); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, list); done {
				return reportErr(cmd, err)
			}
			if t := list.Thinned; t != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", t.Message)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 8, 3, ' ', 0)
			fmt.Fprintln(tw, "POSITION\tRECORDED\tSTREAM\tVERSION\tTYPE\tACTOR\tSOURCE")
			for _, e := range list.Items {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%s\n", e.Position, e.RecordedAt.Format(time.RFC3339),
					e.Stream, e.Version, e.Type, dash(e.Actor), dash(e.Source))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if list.Metadata.Continue != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "more: herd log --after %s\n", list.Metadata.Continue)
			}
			return nil
		},
	}
	addServerFlag(cmd, &server)
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "", "json or yaml")
	f.StringVar(&stream, "stream", "", "one stream (node/web-01), or every stream under a prefix ending in / (node/)")
	f.StringVar(&types, "type", "", "event types, comma-separated (NodeRegistered,NodeConditionChanged)")
	f.StringVar(&since, "since", "", "only events recorded at or after this RFC 3339 time")
	f.StringVar(&until, "until", "", "only events recorded before this RFC 3339 time")
	f.Int64Var(&after, "after", 0, "only events after this log position")
	f.IntVar(&limit, "limit", 0, "at most this many events (default 500)")
	return cmd
}
