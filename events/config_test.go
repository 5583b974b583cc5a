package events_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  events.Config
		want []string // one substring per expected problem
	}{
		{name: "path only, defaults for the rest", cfg: events.Config{Path: "herd.db"}},
		{name: "everything set", cfg: events.Config{Path: "/var/lib/herd/herd.db", BusyTimeout: time.Second, PollInterval: time.Millisecond, SubscribeBatchSize: 1, AckDeadline: time.Minute, MaxOpenConns: 2}},
		{name: "no path", cfg: events.Config{}, want: []string{"Path: is empty"}},
		{name: "memory", cfg: events.Config{Path: ":memory:"}, want: []string{"in-memory"}},
		{name: "memory URI", cfg: events.Config{Path: "file:x?mode=memory"}, want: []string{"in-memory"}},
		{name: "URI", cfg: events.Config{Path: "file:herd.db"}, want: []string{"not a URI"}},
		{name: "options in path", cfg: events.Config{Path: "herd.db?_txlock=deferred"}, want: []string{"contains ? or #"}},
		{
			name: "every problem at once",
			cfg:  events.Config{BusyTimeout: -1, PollInterval: -1, SubscribeBatchSize: -1, AckDeadline: -1, MaxOpenConns: -1},
			want: []string{"Path", "BusyTimeout -1ns is negative", "whole number of milliseconds", "PollInterval", "SubscribeBatchSize", "AckDeadline", "MaxOpenConns"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tt.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Errorf("Validate() reported %d problems, want %d:\n%v", len(lines), len(tt.want), err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %v, want it to mention %q", err, w)
				}
			}
		})
	}
}

func TestOpenDBRefusesMemory(t *testing.T) {
	if db, err := events.OpenDB(t.Context(), ":memory:", events.Config{}); err == nil {
		_ = db.Close()
		t.Fatal("OpenDB(:memory:) succeeded; each pooled connection would see its own database")
	}
}

// TestOpenDBSettings checks the settings every connection gets.
func TestOpenDBSettings(t *testing.T) {
	db := openTestDB(t)
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
	}
	for _, tt := range tests {
		t.Run(tt.pragma, func(t *testing.T) {
			if diff := cmp.Diff([]string{tt.want}, column(t, db, "PRAGMA "+tt.pragma)); diff != "" {
				t.Errorf("PRAGMA %s (-want +got):\n%s", tt.pragma, diff)
			}
		})
	}
}

// TestOpenDBScratchSettings: a scratch log (the what-if's copy) is never
// synced to disk; a durable log keeps FULL (TestOpenDBSettings).
func TestOpenDBScratchSettings(t *testing.T) {
	db, err := events.OpenDB(t.Context(), filepath.Join(t.TempDir(), "scratch.db"), events.Config{Scratch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	for pragma, want := range map[string]string{"synchronous": "0", "journal_mode": "wal", "foreign_keys": "1"} {
		if diff := cmp.Diff([]string{want}, column(t, db, "PRAGMA "+pragma)); diff != "" {
			t.Errorf("PRAGMA %s (-want +got):\n%s", pragma, diff)
		}
	}
}
