package events

import (
	"testing"

	"herd/events/pgtest"
)

// TestLeaderSessionKeepalives: the session that holds the locks asks
// PostgreSQL to probe it soon, so that a dead leader's locks go within
// seconds rather than the kernel's two hours.
func TestLeaderSessionKeepalives(t *testing.T) {
	p, err := OpenPostgres(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	l := p.Leadership(LeadershipConfig{Replica: "a"}).(*postgresLeadership)
	term, err := l.TryLead(t.Context(), "reconcilers")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = term.Release() }()
	l.mu.Lock()
	defer l.mu.Unlock()
	for setting, want := range map[string]string{"tcp_keepalives_idle": "5", "tcp_keepalives_interval": "1", "tcp_keepalives_count": "3"} {
		var got string
		if err := l.conn.QueryRow(t.Context(), "SHOW "+setting).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", setting, got, want)
		}
	}
}
