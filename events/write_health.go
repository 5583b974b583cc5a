package events

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// writeHealth is whether the log could be written the last time anything
// tried: every commit of the unit of work and every save of a follower's
// position reports here, and /readyz reads it. Only storage failures
// count (a full disk, an I/O error), not a command refused for what it
// says.
type writeHealth struct {
	mu      sync.Mutex
	failing bool
	since   time.Time // when the writes began to fail
	last    error     // the newest failure
	probe   Backoff   // how often a failing log is probed
	probeAt time.Time // the next probe may run from then
}

// probeRoom is how much a write probe asks the log to find room for.
const probeRoom = 64 << 10

const (
	probeInsertSQL = `INSERT INTO write_probe (id, room) VALUES (1, zeroblob(?))`
	probeDeleteSQL = `DELETE FROM write_probe`
)

// ObserveWrite records how a write to the log ended: a storage failure
// (SQLITE_FULL, an I/O error) makes the log unwritable until a later write
// succeeds; any other outcome, a success or a refusal of what the write
// said, shows the log can be written.
func (s *Store) ObserveWrite(err error) {
	h := &s.writes
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil && storageError(err) {
		if !h.failing {
			h.failing, h.since = true, time.Now()
			s.logger.Error("The log cannot be written", err, nil)
		}
		h.last = err
		return
	}
	if err == nil && h.failing {
		s.logger.Info("The log can be written again", map[string]any{"failing_for": time.Since(h.since).Round(time.Second).String()})
		h.failing, h.last = false, nil
		h.probe.Succeeded()
	}
}

// Unwritable is nil while the log can be written, and otherwise says
// since when it cannot and why. While it cannot, it first tries a write of
// its own, at most once per backoff (1 s, doubling to 30 s): a herd that
// receives no writes still notices, by being asked, that room is back.
func (s *Store) Unwritable(ctx context.Context) error {
	h := &s.writes
	h.mu.Lock()
	failing, probeDue := h.failing, !time.Now().Before(h.probeAt)
	h.mu.Unlock()
	if !failing {
		return nil
	}
	if probeDue {
		err := s.probeWrite(ctx)
		s.ObserveWrite(err)
		if err == nil {
			return nil
		}
		h.mu.Lock()
		h.probeAt = time.Now().Add(h.probe.Failed())
		h.mu.Unlock()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.failing {
		return nil
	}
	return fmt.Errorf("the log cannot be written since %s: %w", h.since.UTC().Format(time.RFC3339), h.last)
}

// probeWrite asks the log for probeRoom bytes in a committed transaction
// that leaves nothing behind.
func (s *Store) probeWrite(ctx context.Context) error {
	tx, release, err := s.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer release()
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, probeInsertSQL, probeRoom); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, probeDeleteSQL); err != nil {
		return err
	}
	return tx.Commit()
}
