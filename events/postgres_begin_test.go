package events_test

import (
	"testing"

	"herd/events"
)

// TestPostgresBeginAfterTheServerDroppedItsConnections: PostgreSQL ends
// every backend of herd's pool while they sit idle (a restart, an
// operator's pg_terminate_backend, an idle timeout). The next
// transaction still begins, appends and commits: Begin finds the
// connection it took broken, drops it and takes another, as
// database/sql's own BeginTx does.
func TestPostgresBeginAfterTheServerDroppedItsConnections(t *testing.T) {
	ctx := t.Context()
	log, admin := openPostgresWithSQL(t)
	ev := events.NewEvent{Type: "Renewed", Payload: []byte(`{}`)}
	appendOne := func(version int64) error {
		tx, err := log.Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.Append(ctx, "lease/dropped", version, events.Metadata{}, at, ev); err != nil {
			return err
		}
		return tx.Commit()
	}
	// Two transactions at once leave two connections idle in the pool.
	first, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := second.Rollback(); err != nil {
		t.Fatal(err)
	}

	var ended int
	if err := admin.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()) AS t`).Scan(&ended); err != nil {
		t.Fatal(err)
	}
	if ended < 2 {
		t.Fatalf("ended %d of the pool's backends, want at least the 2 left idle", ended)
	}

	if err := appendOne(0); err != nil {
		t.Fatalf("the first transaction after the server ended the pool's connections: %v", err)
	}
	if err := appendOne(1); err != nil {
		t.Fatalf("the second: %v", err)
	}
	recs, err := log.ReadStream(ctx, "lease/dropped", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("the stream holds %d events, want 2", len(recs))
	}
}
