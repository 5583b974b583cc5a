package events_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"herd/events"
)

// TestEffectsStepForwardInTheLog: what an event led to follows causes
// forward in the log from the events that name it. A log edited by hand
// can hold a loop of causes (x names y, y names x), an event naming as
// its cause one recorded after it; the walk still ends, on both
// engines, and lists each effect once.
func TestEffectsStepForwardInTheLog(t *testing.T) {
	const (
		x = "0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e01"
		y = "0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e02"
		z = "0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e03"
	)
	// x names y, recorded after it; y names x; z names y.
	loop := []struct{ id, stream, cause string }{{x, "loop/x", y}, {y, "loop/y", x}, {z, "loop/z", y}}
	for _, e := range []struct {
		name   string
		open   func(t *testing.T) events.Log
		insert string
	}{
		{"SQLite", func(t *testing.T) events.Log {
			s, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s.Log()
		}, `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata, actor, causation_id)
VALUES (?, ?, 1, 'Looped', 1, ?, '{}', '{"actor":"mallory","causationId":"' || ? || '"}', 'mallory', ?)`},
		{"PostgreSQL", func(t *testing.T) events.Log {
			l, _ := openPostgres(t)
			return l
		}, `INSERT INTO events (position, event_id, stream, version, type, schema_version, recorded_at, payload, metadata, txid, actor, causation_id)
VALUES (nextval('events_position'), $1, $2, 1, 'Looped', 1, $3, '{}', convert_to('{"actor":"mallory","causationId":"' || $4 || '"}', 'UTF8'), pg_current_xact_id(), 'mallory', $5)`},
	} {
		t.Run(e.name, func(t *testing.T) {
			l := e.open(t)
			db, _ := events.SQLDB(l)
			at := time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC).UnixNano()
			for _, ev := range loop {
				if _, err := db.ExecContext(t.Context(), e.insert, ev.id, ev.stream, at, ev.cause, ev.cause); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			for _, c := range []struct {
				from string
				want []string
			}{
				// y names x; z names y; x names y, but came before it.
				{x, []string{y, z}},
				// The events naming y, wherever they are (x), then
				// forward from each: y, and z once.
				{y, []string{x, y, z}},
				{z, nil},
			} {
				recs, err := l.Query(ctx, events.Filter{CausedBy: c.from})
				if err != nil {
					t.Fatalf("effects of %s: %v", c.from, err)
				}
				var got []string
				for _, r := range recs {
					got = append(got, r.ID)
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("effects of %s: %v, want %v", c.from, got, c.want)
				}
			}
		})
	}
}
