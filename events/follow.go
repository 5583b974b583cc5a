package events

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
)

// Follower delivers the log to one consumer group as watermill messages,
// on any engine behind the port. It reads with the log's plain reads
// (ReadAfter; on SQLite, WAL lets them run beside the writer, without
// the write lock), is woken by the log's commit signal (CommitSignal),
// and reads on a timer only to catch commits it was not told of: on
// SQLite another process's, on PostgreSQL one whose notification was
// lost while the listening connection was down. Ack each message to move
// on; the next one comes only after the ack.
//
// Its position is kept by the log (GroupPositions) under its group,
// written only when it has moved, at most once every SaveInterval and
// when the subscription ends, so an idle follower writes nothing.
// Delivery is therefore at-least-once: after a crash, the records acked
// since the last save are delivered again. Its consumers must be
// idempotent, as herd's reconcilers are (they also resync).
type Follower struct {
	log   Log
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

// FollowerConfig names a follower's consumer group and says how it reads.
// The zero value of every field but Group means "use the default"; a
// follower of a Store takes its defaults from the store's Config.
type FollowerConfig struct {
	// Group is the consumer group whose position the follower keeps.
	Group string
	// Inherit, when set, is the name prefix of the consumer groups the
	// follower replaces. While Group has no position yet, it starts from
	// the lowest position among them, so that a herd upgraded from one
	// group per consumer neither replays its whole log nor skips what
	// the slowest old group had not handled; with none, from the start.
	Inherit string
	// PollInterval is how long the follower waits, when no commit is
	// announced, before reading the log anyway. Default: a Store's
	// FollowInterval, else 1s, which only bounds how late the follower
	// sees a commit it was not told of.
	PollInterval time.Duration
	// SaveInterval is how often, at most, the follower saves its position
	// while it moves (and once more when it stops). Default: a Store's
	// FollowSaveInterval, else 1s: a crash re-delivers about that much.
	SaveInterval time.Duration
	// BatchSize is how many events one read takes. Default: a Store's
	// SubscribeBatchSize, else 100.
	BatchSize int
	// RedeliverAfter is how long the follower waits before delivering a
	// nacked message again. Default: a Store's PollInterval, else 100ms.
	RedeliverAfter time.Duration
	// Logger logs the reads and saves that fail. Default: a Store's
	// logger, else none.
	Logger watermill.LoggerAdapter
}

// fromStore fills what c leaves zero from the store's configuration.
func (c *FollowerConfig) fromStore(cfg Config, logger watermill.LoggerAdapter) {
	c.PollInterval = cmp.Or(c.PollInterval, cfg.FollowInterval)
	c.SaveInterval = cmp.Or(c.SaveInterval, cfg.FollowSaveInterval)
	c.BatchSize = cmp.Or(c.BatchSize, cfg.SubscribeBatchSize)
	c.RedeliverAfter = cmp.Or(c.RedeliverAfter, cfg.PollInterval)
	if c.Logger == nil {
		c.Logger = logger
	}
}

func (c *FollowerConfig) setDefaults() {
	c.PollInterval = cmp.Or(c.PollInterval, defaultFollowInterval)
	c.SaveInterval = cmp.Or(c.SaveInterval, defaultFollowSaveInterval)
	c.BatchSize = cmp.Or(c.BatchSize, defaultSubscribeBatchSize)
	c.RedeliverAfter = cmp.Or(c.RedeliverAfter, defaultPollInterval)
	if c.Logger == nil {
		c.Logger = watermill.NopLogger{}
	}
}

// Validate reports every problem with c at once, each naming its setting.
func (c FollowerConfig) Validate() error {
	var errs []error
	if c.Group == "" {
		errs = append(errs, errors.New("events: follow: Group is empty; name the consumer group"))
	}
	if c.PollInterval < 0 {
		errs = append(errs, fmt.Errorf("events: follow %s: PollInterval %s is negative", c.Group, c.PollInterval))
	}
	if c.SaveInterval < 0 {
		errs = append(errs, fmt.Errorf("events: follow %s: SaveInterval %s is negative", c.Group, c.SaveInterval))
	}
	if c.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("events: follow %s: BatchSize %d is negative", c.Group, c.BatchSize))
	}
	if c.RedeliverAfter < 0 {
		errs = append(errs, fmt.Errorf("events: follow %s: RedeliverAfter %s is negative", c.Group, c.RedeliverAfter))
	}
	return errors.Join(errs...)
}

// NewFollower makes a follower of log for cfg.Group. The log's Close
// closes it too, once its position is saved, when the log is a Store's
// (Store.Log) or a Postgres; ending its subscription's context or
// closing it stops it in any case.
func NewFollower(log Log, cfg FollowerConfig) (*Follower, error) {
	if m, ok := log.(followerMaker); ok {
		return m.newFollower(cfg)
	}
	return newFollower(log, cfg)
}

// followerMaker is a log that makes its own followers: with its defaults,
// and closing them when it closes.
type followerMaker interface {
	newFollower(cfg FollowerConfig) (*Follower, error)
}

func newFollower(log Log, cfg FollowerConfig) (*Follower, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Follower{log: log, cfg: cfg}, nil
}

// NewFollower makes a follower of the store's log for cfg.Group, with
// the store's settings where cfg has none. Store.Close closes it too.
func (s *Store) NewFollower(cfg FollowerConfig) (*Follower, error) {
	cfg.fromStore(s.cfg, s.logger)
	f, err := newFollower(s.Log(), cfg)
	if err != nil {
		return nil, err
	}
	if err := s.track(subscription{sub: f}); err != nil {
		return nil, err
	}
	return f, nil
}

func (l sqliteLog) newFollower(cfg FollowerConfig) (*Follower, error) { return l.s.NewFollower(cfg) }

// Reads counts the follower's reads of the log, whether they found
// anything or not: about one per announced commit while busy, one per
// PollInterval while idle. A read is counted once it has returned.
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
	// A new group is registered at once at its inherited position, so
	// that a crash before its first save does not send it back to the
	// start of the log.
	pos, err := f.log.GroupPosition(ctx, f.cfg.Group, f.cfg.Inherit)
	if err != nil {
		return nil, fmt.Errorf("events: follow %s: %w", f.cfg.Group, err)
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
