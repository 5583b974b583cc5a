package events

import (
	"context"
	"errors"
	"fmt"
	"time"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
)

// retryInterval is how long a subscriber waits after a failed query (for
// example SQLITE_BUSY after BusyTimeout) before trying again: watermill's
// default, long enough not to hammer a struggling database.
const retryInterval = time.Second

// NewSubscriber makes a watermill subscriber for the consumer group group
// on Topic, for users that need the watermill object (a router). The group
// resumes after its last acked position, across restarts. Delivery is
// at-least-once: a batch whose acks were not committed (a crash, a
// cancelled context) is delivered again. Store.Close closes it too.
//
// While its handler runs, a subscriber holds SQLite's write lock (its
// transaction commits the acks), so handlers must ack quickly: map the
// event to work and return.
func (s *Store) NewSubscriber(group string) (*wsql.Subscriber, error) {
	sub, err := s.newSubscriber(group)
	if err != nil {
		return nil, err
	}
	if err := s.track(subscription{sub: sub}); err != nil {
		_ = sub.Close() // subscribing failed; that error is the one returned
		return nil, err
	}
	return sub, nil
}

func (s *Store) newSubscriber(group string) (*wsql.Subscriber, error) {
	if group == "" {
		return nil, errors.New("events: subscribe: consumer group is empty")
	}
	ackDeadline := s.cfg.AckDeadline
	sub, err := wsql.NewSubscriber(wsql.BeginnerFromStdSQL(s.db), wsql.SubscriberConfig{
		ConsumerGroup: group,
		AckDeadline:   &ackDeadline,
		PollInterval:  s.cfg.PollInterval,
		// A nacked message is re-sent after this long, inside the batch's
		// transaction, so with the write lock held: keep it short.
		ResendInterval: s.cfg.PollInterval,
		RetryInterval:  retryInterval,
		SchemaAdapter:  s.schema,
		OffsetsAdapter: s.offsets,
	}, s.logger)
	if err != nil {
		return nil, fmt.Errorf("events: subscribe %s: %w", group, err)
	}
	return sub, nil
}

// Subscribe delivers the log's events to the consumer group group, in
// position order, starting after the group's last acked position. Ack each
// message (RecordFromMessage reads it) to move the group on. When ctx ends
// or the store closes, the channel closes after the acks of handled
// messages are committed, so a restarted group skips nothing and repeats
// at most the one message whose ack came as it closed (watermill's
// subscriber picks at random between that ack and the close). herd's own
// consumers use a Follower, which repeats nothing.
//
// Keep receiving: the subscriber holds SQLite's write lock from reading a
// batch until its last message is acked, including while it waits for the
// channel to be read, so a consumer that stops reading stalls every writer
// (up to AckDeadline per message). Stop by cancelling ctx instead.
func (s *Store) Subscribe(ctx context.Context, group string) (<-chan *message.Message, error) {
	sub, err := s.newSubscriber(group)
	if err != nil {
		return nil, err
	}
	// The subscriber gets a context that is never cancelled and is closed
	// instead: on cancellation watermill would abandon the current batch
	// without committing its acks, and re-deliver it after a restart.
	msgs, err := sub.Subscribe(context.WithoutCancel(ctx), Topic)
	if err != nil {
		_ = sub.Close() // subscribing failed; that error is the one returned
		return nil, fmt.Errorf("events: subscribe %s: %w", group, err)
	}
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		if err := sub.Close(); err != nil {
			s.logger.Error("Closing subscriber", err, map[string]any{"consumer_group": group})
		}
	})
	if err := s.track(subscription{sub: sub, stop: stop, done: done}); err != nil {
		if stop() {
			_ = sub.Close() // subscribing failed; that error is the one returned
		}
		return nil, err
	}
	return msgs, nil
}

// ConsumerOffset is the log position up to which the consumer group has
// acknowledged every record: where it resumes after a restart. It is 0 for
// a group that has acknowledged nothing.
func (s *Store) ConsumerOffset(ctx context.Context, group string) (int64, error) {
	var off int64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT offset_acked FROM consumer_offsets WHERE consumer_group = ?), 0)`, group).Scan(&off)
	if err != nil {
		return 0, fmt.Errorf("offset of consumer group %s: %w", group, err)
	}
	return off, nil
}
