package main

import (
	"bytes"
	"os"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name        string
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{"before the first batch", 0, 165000, 0, "replaying: 0/165,000 events (0%)"},
		{"no time yet", 20000, 165000, 0, "replaying: 20,000/165,000 events (12%)"},
		{"half way", 82500, 165000, 2 * time.Second, "replaying: 82,500/165,000 events (50%), 41,250 events/s, 2s left"},
		{"time left rounds to the second", 1000000, 3000000, 3300 * time.Millisecond, "replaying: 1,000,000/3,000,000 events (33%), 303,030 events/s, 7s left"},
		{"minutes left", 10000, 1000000, time.Second, "replaying: 10,000/1,000,000 events (1%), 10,000 events/s, 1m39s left"},
		{"every event read", 165000, 165000, 4321 * time.Millisecond, "replayed 165,000 events in 4.3s; writing the views"},
		{"an empty log", 0, 0, time.Millisecond, "replayed 0 events in 0s; writing the views"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := progressLine(tt.done, tt.total, tt.elapsed); got != tt.want {
				t.Errorf("progressLine(%d, %d, %s) = %q, want %q", tt.done, tt.total, tt.elapsed, got, tt.want)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {165000, "165,000"}, {1234567, "1,234,567"}, {-1234, "-1,234"},
	}
	for _, tt := range tests {
		if got := thousands(tt.n); got != tt.want {
			t.Errorf("thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestProgressPrinterIsSilentOffATerminal(t *testing.T) {
	if p := progressPrinter(&bytes.Buffer{}); p != nil {
		t.Error("a progress printer for a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if p := progressPrinter(f); p != nil {
		t.Error("a progress printer for a plain file")
	}
}

// progressLine says how far a replay of total events is after done of
// them and elapsed time: "replaying: 82,500/165,000 events (50%),
// 41,250 events/s, 2s left". Time left assumes the rate holds; once every
// event is read it says that the rows are being written, which still
// takes a while for a wide fleet (each aggregate's row goes in at the
// end).
func progressLine(done, total int64, elapsed time.Duration) string {
	return replayWords.line(done, total, elapsed)
}
