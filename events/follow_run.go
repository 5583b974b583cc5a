package events

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
)

// run reads and delivers the log after pos until ctx ends, then saves the
// position acked so far and closes out.
func (f *Follower) run(ctx context.Context, out chan<- *message.Message, pos int64, done chan struct{}) {
	now := time.Now()
	cfg := f.cfg
	p := &followerPosition{f: f, acked: pos, saved: pos, savedAt: now, nextAt: now.Add(cfg.SaveInterval), failed: saveBackoff()}
	readFailed := saveBackoff()
	defer func() {
		p.save(context.WithoutCancel(ctx))
		close(out)
		f.mu.Lock()
		f.running, f.cancel = false, nil
		f.mu.Unlock()
		close(done)
	}()
	wait := time.NewTimer(cfg.PollInterval)
	defer wait.Stop()
	saveSoon := time.NewTimer(cfg.SaveInterval)
	defer saveSoon.Stop()
	for {
		// The signal is taken before the read: a commit after it closes
		// the channel, so the wait below cannot miss it.
		_, committed := f.log.CommitSignal()
		msgs, more, err := f.read(ctx, p.acked)
		if ctx.Err() != nil {
			return
		}
		interval := cfg.PollInterval
		if err != nil {
			interval, committed = readFailed.Failed(), nil
			cfg.Logger.Error("Reading the log", err, map[string]any{"consumer_group": f.cfg.Group, "position": p.acked,
				"failures": readFailed.Failures(), "retry_in": interval.String()})
		} else {
			readFailed.Succeeded()
		}
		for _, m := range msgs {
			if !f.deliver(ctx, out, m.msg, m.rec) {
				return
			}
			p.acked = m.pos
			f.acked.Store(m.pos)
			p.saveIfDue(ctx)
		}
		if err == nil && more {
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
	rec *Record // nil for a record that could not be read
}

// read is the next batch after pos, read outside any transaction (on
// SQLite, without the write lock), and whether there may be more to read
// at once. A record that cannot be read becomes a message that says so,
// for its consumer to set aside: one bad row must not stop the follower.
func (f *Follower) read(ctx context.Context, pos int64) ([]followed, bool, error) {
	defer f.reads.Add(1)
	recs, err := f.log.ReadAfter(ctx, pos, f.cfg.BatchSize)
	var bad *unreadableError
	if errors.As(err, &bad) {
		return f.readOne(ctx, pos)
	}
	if err != nil {
		return nil, false, fmt.Errorf("follow %s: %w", f.cfg.Group, err)
	}
	return followedRecords(recs), len(recs) == f.cfg.BatchSize, nil
}

// readOne reads the one record after pos, for a batch after pos that
// holds a record that cannot be read: the records before it come one at
// a time, then it comes as a message that says so, and the reads after
// it go on in batches.
func (f *Follower) readOne(ctx context.Context, pos int64) ([]followed, bool, error) {
	recs, err := f.log.ReadAfter(ctx, pos, 1)
	var bad *unreadableError
	switch {
	case errors.As(err, &bad):
		msg := message.NewMessage("", nil)
		msg.Metadata[KeyPosition] = strconv.FormatInt(bad.position, 10)
		msg.Metadata[keyUnreadable] = bad.Error()
		return []followed{{pos: bad.position, msg: msg}}, true, nil
	case err != nil:
		return nil, false, fmt.Errorf("follow %s: %w", f.cfg.Group, err)
	}
	return followedRecords(recs), true, nil
}

// followedRecords are recs as the messages a follower delivers.
func followedRecords(recs []Record) []followed {
	out := make([]followed, len(recs))
	for i := range recs {
		out[i] = followed{pos: recs[i].Position, msg: followedMessage(&recs[i]), rec: &recs[i]}
	}
	return out
}

// deliver hands msg over and waits for its ack; a nack delivers it again
// after a pause. It is false when ctx ended first. The message's context
// carries rec, for RecordFromMessage.
func (f *Follower) deliver(ctx context.Context, out chan<- *message.Message, msg *message.Message, rec *Record) bool {
	if rec != nil {
		ctx = context.WithValue(ctx, followedKey{}, rec)
	}
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
			// An ack that came as the follower was stopped still counts
			// (select picks at random among ready cases): the consumer
			// is done with the message, and saving its position spares
			// a redelivery after the restart.
			select {
			case <-m.Acked():
				return true
			default:
				return false
			}
		}
		pause := time.NewTimer(f.cfg.RedeliverAfter)
		select {
		case <-pause.C:
		case <-ctx.Done():
			pause.Stop()
			return false
		}
	}
}

// followerPosition is where a follower's group stands: acked in memory,
// saved by the log (GroupPositions).
type followerPosition struct {
	f       *Follower
	acked   int64
	saved   int64
	savedAt time.Time
	// nextAt is when the position may be saved next: SaveInterval
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
// more. The outcome tells the log whether it can be written.
func (p *followerPosition) save(ctx context.Context) {
	if p.acked == p.saved {
		return
	}
	err := p.f.log.SaveGroupPosition(ctx, p.f.cfg.Group, p.acked)
	p.f.log.ObserveWrite(err)
	if err != nil {
		wait := p.failed.Failed()
		p.nextAt = time.Now().Add(wait)
		p.f.cfg.Logger.Error("Saving the consumer group's position", err, map[string]any{
			"consumer_group": p.f.cfg.Group, "position": p.acked, "failures": p.failed.Failures(), "retry_in": wait.String()})
		return
	}
	p.failed.Succeeded()
	p.saved, p.savedAt = p.acked, time.Now()
	p.nextAt = p.savedAt.Add(p.f.cfg.SaveInterval)
}
