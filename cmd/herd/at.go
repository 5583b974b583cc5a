package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"herd/adapters/httpapi"
)

// addAtFlag adds --at, which reads the fleet as it was.
func addAtFlag(cmd *cobra.Command, at *string) {
	cmd.Flags().StringVar(at, "at", "", "show it as it was: at an RFC 3339 time, a duration ago (2h, 30m) or a resourceVersion (a log position)")
}

// atPosition turns --at into the log position to read the fleet at: a
// resourceVersion as given, or for a time (RFC 3339, or a duration ago
// from now) the position of the newest event recorded at or before it;
// 0 when the log holds none by then (the fleet was empty). moment is the
// time the fleet is shown as of, which ages are counted to: the time
// asked, or when the event at the resourceVersion was recorded. It tells
// w when heartbeats before that position were thinned by the retention
// policy.
func atPosition(ctx context.Context, c *client, w io.Writer, at string, now time.Time) (pos int64, moment time.Time, err error) {
	q := url.Values{"tail": {"1"}}
	pos, err = strconv.ParseInt(at, 10, 64)
	switch {
	case err == nil && pos > 0:
		// The newest event at or before it says when that was.
		q.Set("before", strconv.FormatInt(pos+1, 10))
	case err == nil:
		return 0, time.Time{}, fmt.Errorf("--at %s: a resourceVersion is a log position from 1", at)
	default:
		when, err := atTime(at, now)
		if err != nil {
			return 0, time.Time{}, err
		}
		q.Set("until", when.Add(time.Nanosecond).Format(time.RFC3339Nano))
		pos, moment = -1, when
	}
	var list httpapi.AuditEventList
	if err := c.get(ctx, "/apis/herd.dev/v1/auditevents", q, &list); err != nil {
		return 0, time.Time{}, err
	}
	if pos < 0 {
		pos = 0
		if len(list.Items) > 0 {
			pos = list.Items[0].Position
		}
	} else if len(list.Items) > 0 {
		moment = list.Items[0].RecordedAt
	}
	if moment.IsZero() {
		moment = now
	}
	if t := list.Thinned; t != nil && pos > 0 && pos < t.ThroughPosition {
		fmt.Fprintf(w, "herd: as of resourceVersion %d the retention policy has thinned heartbeats (before %s): each node shows the last heartbeat the log still holds\n",
			pos, t.Before.Format(time.RFC3339))
	}
	return pos, moment, nil
}

// atTime reads --at as a time: RFC 3339, or a duration ago.
func atTime(at string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(at)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("--at %q: want an RFC 3339 time (2026-11-27T03:00:00Z), a duration ago (2h) or a resourceVersion", at)
	}
	return now.Add(-d), nil
}

// pastQuery is q listing the fleet as it stood at log position pos: an
// exact list at that resourceVersion.
func pastQuery(q url.Values, pos int64) url.Values {
	if q == nil {
		q = url.Values{}
	}
	q.Set("resourceVersion", strconv.FormatInt(pos, 10))
	q.Set("resourceVersionMatch", "Exact")
	return q
}

// listAt lists path into out: as it is now when at is "", else as it was
// at --at (an empty list when the log held nothing by then). It returns
// the moment the list shows, for ages: now, or the moment --at names.
func listAt(cmd *cobra.Command, c *client, at, path string, q url.Values, out any) (time.Time, error) {
	now := time.Now()
	if at == "" {
		return now, c.get(cmd.Context(), path, q, out)
	}
	pos, moment, err := atPosition(cmd.Context(), c, cmd.ErrOrStderr(), at, now)
	if err != nil || pos == 0 {
		return moment, err
	}
	return moment, c.get(cmd.Context(), path, pastQuery(q, pos), out)
}
