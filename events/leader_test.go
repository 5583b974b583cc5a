package events_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// TestSoleLeadershipLeadsAtOnce: herd serve on SQLite has no one to share
// a job with, so it leads at once, until it lets go.
func TestSoleLeadershipLeadsAtOnce(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	l := events.SoleLeadership(events.LeadershipConfig{Replica: "solo", Now: func() time.Time { return at }})
	if _, ok, err := l.Leader(t.Context(), "reconcilers"); ok || err != nil {
		t.Fatalf("before any term: ok %t, %v; want no leader", ok, err)
	}
	term, err := l.TryLead(t.Context(), "reconcilers")
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := l.Leader(t.Context(), "reconcilers")
	if err != nil || !ok {
		t.Fatalf("leading: ok %t, %v", ok, err)
	}
	if diff := cmp.Diff(events.Leader{Replica: "solo", Since: at, Self: true}, got); diff != "" {
		t.Errorf("Leader (-want +got):\n%s", diff)
	}
	if _, err := l.TryLead(t.Context(), "reconcilers"); err == nil {
		t.Error("a second term of a job led already")
	}
	select {
	case <-term.Lost():
		t.Fatal("a sole leader's term is lost while it holds it")
	default:
	}
	if err := term.Release(); err != nil {
		t.Fatal(err)
	}
	<-term.Lost() // closed by the release
	if err := term.Release(); err != nil {
		t.Errorf("releasing twice: %v", err)
	}
	again, err := l.TryLead(t.Context(), "reconcilers")
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	_ = again.Release()
}

// TestLeadershipOfPicksTheEngine: a SQLite log leads at once; its default
// replica name is the host and pid.
func TestLeadershipOfPicksTheEngine(t *testing.T) {
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	l := events.LeadershipOf(store.Log(), events.LeadershipConfig{})
	term, err := l.TryLead(t.Context(), "reconcilers")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = term.Release() }()
	got, _, _ := l.Leader(t.Context(), "reconcilers")
	if got.Replica != events.DefaultReplica() || !strings.Contains(got.Replica, ":") {
		t.Errorf("replica %q, want host:pid %q", got.Replica, events.DefaultReplica())
	}
}
