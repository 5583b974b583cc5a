package events

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
)

// countingLogger counts the errors logged through it.
type countingLogger struct {
	watermill.NopLogger
	errors atomic.Int64
}

func (l *countingLogger) Error(string, error, watermill.LogFields) { l.errors.Add(1) }

// TestAFollowerThatCannotSaveItsPositionBacksOff: a save that fails
// (with a full disk, every one does) is tried again only after a wait
// that doubles up to half a minute, and each try is logged once; a saver
// asked again before then neither writes nor logs. Before the backoff, a
// follower with nothing else to do retried at once, 18,000 times a second.
func TestAFollowerThatCannotSaveItsPositionBacksOff(t *testing.T) {
	log := &countingLogger{}
	store, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "herd.db")}, log)
	if err != nil {
		t.Fatal(err)
	}
	f, err := store.NewFollower(FollowerConfig{Group: "reconcilers"})
	if err != nil {
		t.Fatal(err)
	}
	p := &followerPosition{f: f, acked: 7, failed: saveBackoff()}
	// Every save fails from now on.
	_ = store.writer.conn.Close()
	_ = store.db.Close()

	var waits []time.Duration
	for range 8 {
		before := time.Now()
		p.save(t.Context())
		waits = append(waits, p.nextAt.Sub(before).Round(time.Second))
		for range 1000 { // asked again and again before it is due
			p.saveIfDue(t.Context())
		}
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30, 30}
	for i := range want {
		if waits[i] != want[i]*time.Second {
			t.Errorf("wait after failure %d: %s, want %ds (all: %v)", i+1, waits[i], want[i], waits)
		}
	}
	if got := log.errors.Load(); got != 8 {
		t.Errorf("%d errors logged for 8 failed saves and 8,000 premature asks, want 8", got)
	}
	if p.saved != 0 {
		t.Errorf("saved %d on a closed database", p.saved)
	}
}
