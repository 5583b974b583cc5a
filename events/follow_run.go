package events

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
)

// run reads and delivers the log after pos until ctx ends, then saves the
// position acked so far and closes out.
func (f *Follower) run(ctx context.Context, out chan<- *message.Message, pos int64, done chan struct{}) {
	now := time.Now()
	p := &followerPosition{f: f, acked: pos, saved: pos, savedAt: now, nextAt: now.Add(f.store.cfg.FollowSaveInterval), failed: saveBackoff()}
	readFailed := saveBackoff()
	defer func() {
		p.save(context.WithoutCancel(ctx))
		close(out)
		f.mu.Lock()
		f.running, f.cancel = false, nil
		f.mu.Unlock()
		close(done)
	}()
	cfg := f.store.cfg
	wait := time.NewTimer(cfg.FollowInterval)
	defer wait.Stop()
	saveSoon := time.NewTimer(cfg.FollowSaveInterval)
	defer saveSoon.Stop()
	for {
		// The signal is taken before the read: a commit after it closes
		// the channel, so the wait below cannot miss it.
		_, committed := f.store.CommitSignal()
		msgs, err := f.read(ctx, p.acked)
		if ctx.Err() != nil {
			return
		}
		interval := cfg.FollowInterval
		if err != nil {
			interval, committed = readFailed.Failed(), nil
			f.store.logger.Error("Reading the log", err, map[string]any{"consumer_group": f.cfg.Group, "position": p.acked,
				"failures": readFailed.Failures(), "retry_in": interval.String()})
		} else {
			readFailed.Succeeded()
		}
		for _, m := range msgs {
			if !f.deliver(ctx, out, m.msg) {
				return
			}
			p.acked = m.pos
			f.acked.Store(m.pos)
			p.saveIfDue(ctx)
		}
		if err == nil && len(msgs) == cfg.SubscribeBatchSize {
			continue // there is more to read
		}
		wait.Reset(interval)
		var saveDue <-chan time.Time
		if p.acked != p.saved {
			saveSoon.Reset(p.untilDue())
			saveDue = saveSoon.C
		}
		select {
		case <-ctx.Done():
			return
		case <-committed:
		case <-wait.C:
		case <-saveDue:
			p.save(ctx)
		}
	}
}

// followed is one record read by a follower, as the message it delivers.
type followed struct {
	pos int64
	msg *message.Message
}

// read is the next batch after pos, read outside any transaction, so
// that it does not take the write lock. A record that cannot be read
// becomes a message that says so, for its consumer to set aside: one bad
// row must not stop the follower.
func (f *Follower) read(ctx context.Context, pos int64) ([]followed, error) {
	f.reads.Add(1)
	rows, err := f.store.db.QueryContext(ctx, readAfterQuery, pos, f.store.cfg.SubscribeBatchSize)
	if err != nil {
		return nil, fmt.Errorf("follow %s: read after %d: %w", f.cfg.Group, pos, err)
	}
	defer rows.Close()
	var out []followed
	for rows.Next() {
		r, err := scanRecord(rows)
		switch {
		case err == nil:
			out = append(out, followed{pos: r.Position, msg: toMessage(&r, formatTime(r.RecordedAt))})
		case r.Position > 0:
			msg := message.NewMessage(r.ID, nil)
			msg.Metadata[KeyPosition] = strconv.FormatInt(r.Position, 10)
			msg.Metadata[keyUnreadable] = err.Error()
			out = append(out, followed{pos: r.Position, msg: msg})
		default:
			return nil, fmt.Errorf("follow %s: read after %d: %w", f.cfg.Group, pos, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("follow %s: read after %d: %w", f.cfg.Group, pos, err)
	}
	return out, nil
}

// deliver hands msg over and waits for its ack; a nack delivers it again
// after a pause. It is false when ctx ended first.
func (f *Follower) deliver(ctx context.Context, out chan<- *message.Message, msg *message.Message) bool {
	for m := msg; ; m = msg.Copy() { // a message is acked or nacked once
		m.SetContext(ctx)
		select {
		case out <- m:
		case <-ctx.Done():
			return false
		}
		select {
		case <-m.Acked():
			return true
		case <-m.Nacked():
		case <-ctx.Done():
			return false
		}
		pause := time.NewTimer(f.store.cfg.PollInterval)
		select {
		case <-pause.C:
		case <-ctx.Done():
			pause.Stop()
			return false
		}
	}
}

// followerPosition is where a follower's group stands: acked in memory,
// saved in consumer_offsets.
type followerPosition struct {
	f       *Follower
	acked   int64
	saved   int64
	savedAt time.Time
	// nextAt is when the position may be saved next: FollowSaveInterval
	// after the last save, or a backoff after a failed one.
	nextAt time.Time
	failed Backoff
}

// saveBackoff is how a follower that cannot save its position waits
// before trying again: from a second up to half a minute, so that a full
// disk costs a handful of tries and log lines a minute, not a busy core.
func saveBackoff() Backoff { return Backoff{Initial: time.Second, Max: 30 * time.Second} }

// saveIfDue saves the position when it is due.
func (p *followerPosition) saveIfDue(ctx context.Context) {
	if !time.Now().Before(p.nextAt) {
		p.save(ctx)
	}
}

// untilDue is how long until the position may be saved next.
func (p *followerPosition) untilDue() time.Duration { return max(0, time.Until(p.nextAt)) }

// save writes the position if it has moved. A failure is logged and the
// save tried again after a backoff: until then a restart repeats a little
// more. The outcome tells the store whether the log can be written.
func (p *followerPosition) save(ctx context.Context) {
	if p.acked == p.saved {
		return
	}
	_, err := p.f.store.db.ExecContext(ctx, ackQuery, p.f.cfg.Group, p.acked)
	p.f.store.ObserveWrite(err)
	if err != nil {
		wait := p.failed.Failed()
		p.nextAt = time.Now().Add(wait)
		p.f.store.logger.Error("Saving the consumer group's position", err, map[string]any{
			"consumer_group": p.f.cfg.Group, "position": p.acked, "failures": p.failed.Failures(), "retry_in": wait.String()})
		return
	}
	p.failed.Succeeded()
	p.saved, p.savedAt = p.acked, time.Now()
	p.nextAt = p.savedAt.Add(p.f.store.cfg.FollowSaveInterval)
}
