package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"herd/adapters/httpapi"
)

// TestLogCommand: herd log reads the audit log as kubectl logs reads a
// pod's: --since a while back, --tail the newest, -f live until Ctrl-C,
// and a wrong --type says which types there are.
func TestLogCommand(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	for _, n := range []string{"log-a", "log-b", "log-c"} {
		registerAgent(t, srv.URL, n)
	}
	server := "--server=" + srv.URL
	_, all := table(t, mustHerd(t, "log", server).Stdout)

	t.Run("--since a duration", func(t *testing.T) {
		_, rows := table(t, mustHerd(t, "log", server, "--since", "5m").Stdout)
		if got, want := column(rows, 0), column(all, 0); !slices.Equal(got, want) {
			t.Errorf("--since 5m: positions %q, want every one so far %q", got, want)
		}
		_, rows = table(t, mustHerd(t, "log", server, "--since-time", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)).Stdout)
		if len(rows) != 0 {
			t.Errorf("--since-time an hour ahead: %d events, want none", len(rows))
		}
	})

	t.Run("--tail", func(t *testing.T) {
		_, rows := table(t, mustHerd(t, "log", server, "--tail", "2").Stdout)
		if got, want := column(rows, 0), column(all[len(all)-2:], 0); !slices.Equal(got, want) {
			t.Errorf("--tail 2: positions %q, want the newest two %q", got, want)
		}
	})

	t.Run("--actor", func(t *testing.T) {
		_, rows := table(t, mustHerd(t, "log", server, "--actor", "system:anonymous").Stdout)
		if len(rows) == 0 {
			t.Fatal("--actor system:anonymous: no events, want the registrations")
		}
		for _, actor := range column(rows, 5) {
			if actor != "system:anonymous" {
				t.Errorf("--actor system:anonymous: an event of %q", actor)
			}
		}
		if _, rows := table(t, mustHerd(t, "log", server, "--actor", "nobody").Stdout); len(rows) != 0 {
			t.Errorf("--actor nobody: %d events, want none", len(rows))
		}
	})

	t.Run("--type unknown", func(t *testing.T) {
		res := herd(t, nil, "log", server, "--type", "Bogus")
		if res.Code == 0 || !strings.Contains(res.Stderr, `"Bogus"`) || !strings.Contains(res.Stderr, "NodeRegistered") {
			t.Errorf("exit %d, stderr %q: want non-zero, Bogus named and the types there are", res.Code, res.Stderr)
		}
	})

	t.Run("--since not a duration", func(t *testing.T) {
		res := herd(t, nil, "log", server, "--since", "yesterday")
		if res.Code != 2 || !strings.Contains(res.Stderr, `--since "yesterday"`) {
			t.Errorf("exit %d, stderr %q: want 2 and --since named", res.Code, res.Stderr)
		}
	})

	t.Run("-f", func(t *testing.T) {
		p := spawn(t, srv.URL, "", nil, "log", server, "-f", "--stream", "node/", "--tail", "1")
		eventually(t, 10*time.Second, func() error {
			if out := p.output.String(); !strings.Contains(out, "node/log-c") {
				return fmt.Errorf("no node/log-c yet in %q", out)
			}
			return nil
		})
		registerAgent(t, srv.URL, "log-d")
		eventually(t, 10*time.Second, func() error {
			if out := p.output.String(); !strings.Contains(out, "node/log-d") {
				return fmt.Errorf("log -f has not shown node/log-d: %q", out)
			}
			return nil
		})
		if code, err := p.signal(syscall.SIGINT, 10*time.Second); err != nil || code != 0 {
			t.Errorf("herd log -f after Ctrl-C: exit %d, %v; want 0", code, err)
		}
		out := p.output.String()
		if strings.Count(out, "POSITION") != 1 || strings.Contains(out, "node/log-a") {
			t.Errorf("herd log -f --tail 1 printed %q: want one header, and nothing older than the tail", out)
		}
		// The live rows keep the header's columns.
		lines := strings.Split(strings.TrimSpace(out), "\n")
		header := lines[0]
		for _, line := range lines[1:] {
			if i := strings.Index(header, "STREAM"); len(line) <= i || line[i-1] != ' ' || line[i] != 'n' {
				t.Errorf("row %q does not line up with the header %q", line, header)
			}
		}
	})

	t.Run("more keeps the filters", func(t *testing.T) {
		res := mustHerd(t, "log", server, "--stream", "node/", "--limit", "2")
		_, first := table(t, res.Stdout)
		more, ok := strings.CutPrefix(strings.TrimSpace(res.Stderr), "more: herd ")
		if !ok || !strings.Contains(more, "--stream node/") || !strings.Contains(more, "--limit 2") {
			t.Fatalf("the hint %q: want the next page's command with --stream node/ and --limit 2", res.Stderr)
		}
		_, next := table(t, mustHerd(t, strings.Fields(more)...).Stdout)
		if len(next) == 0 || next[0][0] <= first[len(first)-1][0] && len(next[0][0]) <= len(first[len(first)-1][0]) {
			t.Errorf("the next page %q does not follow the first %q", next, first)
		}
		for _, row := range next {
			if !strings.HasPrefix(row[2], "node/") {
				t.Errorf("the next page holds %s: the hint dropped the stream filter", row[2])
			}
		}
	})

	t.Run("--caused-by", func(t *testing.T) {
		// A drain: the operator's command, and what herd did because of it.
		mustHerd(t, "node", "drain", "log-b", server)
		logOf := func(args ...string) (httpapi.AuditEventList, error) {
			var page httpapi.AuditEventList
			err := json.Unmarshal([]byte(mustHerd(t, append([]string{"log", server, "-o", "json", "--limit", "10000"}, args...)...).Stdout), &page)
			return page, err
		}
		// What the drain led to, transitively, as the whole log says,
		// against what --caused-by says: the same once herd has done what
		// the drain sets off (a later effect may land between two reads).
		eventually(t, 20*time.Second, func() error {
			all, err := logOf()
			if err != nil {
				return err
			}
			causes := map[string][]string{} // an event id -> the events naming it as their cause
			drain := ""
			for _, e := range all.Items {
				if e.Stream == "node/log-b" && e.Type == "NodeDrainStarted" {
					drain = e.ID
				}
				if e.CausationID != "" {
					causes[e.CausationID] = append(causes[e.CausationID], e.ID)
				}
			}
			if drain == "" || len(causes[drain]) == 0 {
				return fmt.Errorf("no NodeDrainStarted of log-b that caused something yet")
			}
			var want []string
			for frontier := []string{drain}; len(frontier) > 0; {
				var next []string
				for _, id := range frontier {
					next = append(next, causes[id]...)
				}
				want, frontier = append(want, next...), next
			}
			got, err := logOf("--caused-by", drain)
			if err != nil {
				return err
			}
			var ids []string
			for _, e := range got.Items {
				ids = append(ids, e.ID)
			}
			slices.Sort(ids)
			slices.Sort(want)
			if !slices.Equal(ids, want) {
				return fmt.Errorf("--caused-by %s: %q, want what it led to %q", drain, ids, want)
			}
			return nil
		})
		res := herd(t, nil, "log", server, "--caused-by", "not-an-id")
		if res.Code == 0 || !strings.Contains(res.Stderr, "causedBy") {
			t.Errorf("--caused-by not-an-id: exit %d, stderr %q: want an error naming causedBy", res.Code, res.Stderr)
		}
	})

	t.Run("--type a change recorded inside another event", func(t *testing.T) {
		// An agent's first heartbeat turns its node Ready with its
		// conditions, as one NodeStatusChanged: asked for, it is listed.
		for _, n := range []string{"log-a", "log-b", "log-c"} {
			heartbeat(t, srv.URL, n, healthyMetrics())
		}
		header, rows := table(t, mustHerd(t, "log", server, "--type", "NodeBecameReady").Stdout)
		stream, typ := slices.Index(header, "STREAM"), slices.Index(header, "TYPE")
		if stream < 0 || typ < 0 {
			t.Fatalf("header %q: want STREAM and TYPE", header)
		}
		if got, want := column(rows, stream), []string{"node/log-a", "node/log-b", "node/log-c"}; !slices.Equal(got, want) {
			t.Errorf("--type NodeBecameReady: streams %q (types %q), want each node's turn %q", got, column(rows, typ), want)
		}
	})
}
