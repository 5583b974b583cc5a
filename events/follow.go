package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ThreeDotsLabs/watermill/message"
)

// Follower delivers the log to one consumer group as watermill messages
// without taking SQLite's write lock to read: it reads with plain reads
// (WAL lets them run beside the writer), is woken by the store's commit
// signal (see Committed), and reads on a timer only to catch commits it
// was not told of, such as another process's. Ack each message to move
// on; the next one comes only after the ack.
//
// Its position is kept in consumer_offsets under its group, written only
// when it has moved, at most once every FollowSaveInterval and when the
// subscription ends, so an idle follower writes nothing. Delivery is
// therefore at-least-once: after a crash, the records acked since the
// last save are delivered again. Its consumers must be idempotent, as
// herd's reconcilers are (they also resync).
type Follower struct {
	store *Store
	cfg   FollowerConfig
	reads atomic.Int64
	acked atomic.Int64

	mu      sync.Mutex
	closed  bool
	running bool
	cancel  context.CancelFunc
	done    chan struct{}
}

var _ message.Subscriber = (*Follower)(nil)

// FollowerConfig names a follower's consumer group.
type FollowerConfig struct {
	// Group is the consumer group whose position the follower keeps.
	Group string
	// Inherit, when set, is the name prefix of the consumer groups the
	// follower replaces. While Group has no position yet, it starts from
	// the lowest position among them, so that a herd upgraded from one
	// group per consumer neither replays its whole log nor skips what
	// the slowest old group had not handled; with none, from the start.
	Inherit string
}

// NewFollower makes a follower for cfg.Group. Store.Close closes it too.
func (s *Store) NewFollower(cfg FollowerConfig) (*Follower, error) {
	if cfg.Group == "" {
		return nil, errors.New("events: follow: consumer group is empty")
	}
	f := &Follower{store: s, cfg: cfg}
	if err := s.track(subscription{sub: f}); err != nil {
		return nil, err
	}
	return f, nil
}

// Reads counts the follower's reads of the log, whether they found
// anything or not: about one per announced commit while busy, one per
// FollowInterval while idle.
func (f *Follower) Reads() int64 { return f.reads.Load() }

// Position is where the group stands: the last position acked, or where
// the current subscription started before any ack.
func (f *Follower) Position() int64 { return f.acked.Load() }

// Subscribe starts delivering the log after the group's position, in
// position order. topic must be Topic. A follower has one subscription at
// a time; the channel closes when ctx ends or the follower closes, once
// the position acked so far is saved.
func (f *Follower) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	if topic != Topic {
		return nil, fmt.Errorf("events: follow %s: topic %q: want %q", f.cfg.Group, topic, Topic)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.closed:
		return nil, errStoreClosed
	case f.running:
		return nil, fmt.Errorf("events: follow %s: already subscribed", f.cfg.Group)
	}
	pos, err := f.start(ctx)
	if err != nil {
		return nil, err
	}
	f.acked.Store(pos)
	ctx, f.cancel = context.WithCancel(ctx)
	f.running, f.done = true, make(chan struct{})
	out := make(chan *message.Message)
	go f.run(ctx, out, pos, f.done)
	return out, nil
}

// Close ends the subscription and waits until its position is saved.
func (f *Follower) Close() error {
	f.mu.Lock()
	f.closed = true
	cancel, done := f.cancel, f.done
	f.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	return nil
}

const (
	groupOffsetQuery   = `SELECT offset_acked FROM consumer_offsets WHERE consumer_group = ?`
	lowestInheritQuery = `SELECT MIN(offset_acked) FROM consumer_offsets WHERE substr(consumer_group, 1, length(?1)) = ?1`
)

// start is where the group resumes. A new group is registered at once at
// its inherited position, so that a crash before its first save does not
// send it back to the start of the log.
func (f *Follower) start(ctx context.Context) (int64, error) {
	db := f.store.db
	var pos int64
	err := db.QueryRowContext(ctx, groupOffsetQuery, f.cfg.Group).Scan(&pos)
	if err == nil {
		return pos, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("events: follow %s: %w", f.cfg.Group, err)
	}
	if f.cfg.Inherit != "" {
		var lowest *int64
		if err := db.QueryRowContext(ctx, lowestInheritQuery, f.cfg.Inherit).Scan(&lowest); err != nil {
			return 0, fmt.Errorf("events: follow %s: inherit from %s*: %w", f.cfg.Group, f.cfg.Inherit, err)
		}
		if lowest != nil {
			pos = *lowest
		}
	}
	if _, err := db.ExecContext(ctx, ackQuery, f.cfg.Group, pos); err != nil {
		return 0, fmt.Errorf("events: follow %s: register: %w", f.cfg.Group, err)
	}
	return pos, nil
}
