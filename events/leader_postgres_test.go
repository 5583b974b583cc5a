package events_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// openLogAt opens the log at url for the rest of the test.
func openLogAt(t *testing.T, url string) *events.Postgres {
	t.Helper()
	l, err := events.OpenPostgres(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// leader is who l says leads job, failing t on an error.
func leader(t *testing.T, l events.Leadership, job string) (events.Leader, bool) {
	t.Helper()
	who, ok, err := l.Leader(t.Context(), job)
	if err != nil {
		t.Fatal(err)
	}
	return who, ok
}

// ignoreSince leaves out when a term began: the database's clock.
var ignoreSince = cmpopts.IgnoreFields(events.Leader{}, "Since")

// TestPostgresLeadershipOneLeaderAtATime: of two replicas on one
// database, one leads a job and the other is told so, both say who leads,
// jobs are led apart, and a released job is the other's to take.
func TestPostgresLeadershipOneLeaderAtATime(t *testing.T) {
	url := pgtest.URL(t)
	la := openLogAt(t, url).Leadership(events.LeadershipConfig{Replica: "a"})
	lb := openLogAt(t, url).Leadership(events.LeadershipConfig{Replica: "b"})

	if _, ok := leader(t, lb, "reconcilers"); ok {
		t.Fatal("a leader before anyone led")
	}
	ta, err := la.TryLead(t.Context(), "reconcilers")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lb.TryLead(t.Context(), "reconcilers"); !errors.Is(err, events.ErrLedElsewhere) {
		t.Fatalf("b tried to lead what a leads: %v, want ErrLedElsewhere", err)
	}
	if _, err := la.TryLead(t.Context(), "reconcilers"); err == nil {
		t.Fatal("a took a second term of what it leads")
	}
	for _, tt := range []struct {
		name string
		l    events.Leadership
		want events.Leader
	}{
		{name: "asked of a", l: la, want: events.Leader{Replica: "a", Self: true}},
		{name: "asked of b", l: lb, want: events.Leader{Replica: "a", Self: false}},
	} {
		got, ok := leader(t, tt.l, "reconcilers")
		if diff := cmp.Diff(tt.want, got, ignoreSince); !ok || diff != "" {
			t.Errorf("%s: ok %t (-want +got):\n%s", tt.name, ok, diff)
		}
		if got.Since.IsZero() {
			t.Errorf("%s: no time the term began", tt.name)
		}
	}

	// Another job is led apart.
	tr, err := lb.TryLead(t.Context(), "retention")
	if err != nil {
		t.Fatalf("b leading another job: %v", err)
	}
	defer func() { _ = tr.Release() }()

	if err := ta.Release(); err != nil {
		t.Fatal(err)
	}
	<-ta.Lost()
	if who, ok := leader(t, lb, "reconcilers"); ok {
		t.Errorf("after a's release: %+v leads", who)
	}
	tb, err := lb.TryLead(t.Context(), "reconcilers")
	if err != nil {
		t.Fatalf("b after a's release: %v", err)
	}
	defer func() { _ = tb.Release() }()
	if _, err := la.TryLead(t.Context(), "reconcilers"); !errors.Is(err, events.ErrLedElsewhere) {
		t.Errorf("a tried to lead what b leads now: %v, want ErrLedElsewhere", err)
	}
	select {
	case <-tr.Lost():
		t.Error("b's other term was lost with a's")
	default:
	}
}

// TestPostgresLeadershipMovesOnWhenTheLeaderGoes: a leader whose log
// closes, or whose session the database ends, loses its term, and the
// other replica leads then.
func TestPostgresLeadershipMovesOnWhenTheLeaderGoes(t *testing.T) {
	tests := []struct {
		name string
		end  func(t *testing.T, a, b *events.Postgres)
	}{
		{name: "its log closes", end: func(t *testing.T, a, _ *events.Postgres) {
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "the database ends its session", end: func(t *testing.T, _, b *events.Postgres) {
			db, _ := events.SQLDB(b)
			var n int
			err := db.QueryRowContext(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE datname = current_database() AND application_name = 'herd leader a'`).Scan(&n)
			if err != nil || n != 1 {
				t.Fatalf("terminated %d sessions, %v; want a's one", n, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := pgtest.URL(t)
			a, b := openLogAt(t, url), openLogAt(t, url)
			la := a.Leadership(events.LeadershipConfig{Replica: "a"})
			lb := b.Leadership(events.LeadershipConfig{Replica: "b"})
			ta, err := la.TryLead(t.Context(), "reconcilers")
			if err != nil {
				t.Fatal(err)
			}
			tt.end(t, a, b)
			select {
			case <-ta.Lost():
			case <-time.After(eventstest.WaitFor):
				t.Fatalf("a's term not lost within %s", eventstest.WaitFor)
			}
			tb := takeOver(t, lb, "reconcilers")
			defer func() { _ = tb.Release() }()
			if who, ok := leader(t, lb, "reconcilers"); !ok || who.Replica != "b" || !who.Self {
				t.Errorf("after the takeover: %+v, ok %t; want b", who, ok)
			}
		})
	}
}

// takeOver tries to lead job through l until it does, as a replica that
// waits does (more often), and returns the term.
func takeOver(t *testing.T, l events.Leadership, job string) events.Term {
	t.Helper()
	var (
		term events.Term
		last error
	)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		term, last = l.TryLead(t.Context(), job)
		return last == nil
	}, "never led %s; last: %v", job, &last)
	return term
}

// TestPostgresLeadershipSurvivesAKilledLeader: when the process that
// leads is killed (SIGKILL), PostgreSQL frees its lock and another
// replica takes over. Until it does, the dead leader's row says nothing.
func TestPostgresLeadershipSurvivesAKilledLeader(t *testing.T) {
	url := pgtest.URL(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestLeadHelper$") //nolint:gosec // this test binary, running one of its own tests
	cmd.Env = append(os.Environ(), "HERD_LEAD_HELPER_URL="+url)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "leading" {
		t.Fatalf("helper: got %q, %v; want \"leading\"", line, err)
	}
	lb := openLogAt(t, url).Leadership(events.LeadershipConfig{Replica: "b"})
	if _, err := lb.TryLead(t.Context(), "reconcilers"); !errors.Is(err, events.ErrLedElsewhere) {
		t.Fatalf("while the helper leads: %v, want ErrLedElsewhere", err)
	}
	if who, ok := leader(t, lb, "reconcilers"); !ok || who.Replica != "killed" {
		t.Fatalf("while the helper leads: %+v, ok %t; want killed", who, ok)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	_ = cmd.Wait() // killed: the error says so
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { _, ok := leader(t, lb, "reconcilers"); return !ok },
		"the killed leader's row still counts")
	tb := takeOver(t, lb, "reconcilers")
	defer func() { _ = tb.Release() }()
	t.Logf("b led %s after the leader was killed", time.Since(killed).Round(time.Millisecond))
}

// TestLeadHelper is the killed leader of the test above: it leads, says
// so, and waits to be killed.
func TestLeadHelper(t *testing.T) {
	url := os.Getenv("HERD_LEAD_HELPER_URL")
	if url == "" {
		t.Skip("the helper process of TestPostgresLeadershipSurvivesAKilledLeader")
	}
	l := openLogAt(t, url)
	if _, err := l.Leadership(events.LeadershipConfig{Replica: "killed"}).TryLead(t.Context(), "reconcilers"); err != nil {
		t.Fatal(err)
	}
	_, _ = os.Stdout.WriteString("leading\n")
	select {} // until killed
}
