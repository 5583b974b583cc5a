package reconcilers

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ThreeDotsLabs/watermill/message"
	"go.uber.org/zap"

	"herd/events"
)

// ConsumerGroup is the consumer group under which the dispatcher keeps
// its place in the log, for every reconciler at once.
const ConsumerGroup = "reconcilers"

// LegacyGroupPrefix begins the consumer groups of herd versions that gave
// each reconciler its own ("reconciler-" + name). The dispatcher's group
// starts where the slowest of them stood, so an upgraded herd neither
// replays its whole log nor skips what one of them had not handled.
const LegacyGroupPrefix = "reconciler-"

// dispatcher follows the log for every running reconciler: it reads each
// record once and maps it to every reconciler's keys (Watches), which only
// queues keys, then acks it. The follower saves the acked position now
// and then and when it stops, not on every ack, so after a crash a short
// stretch of the log comes again: delivery is at-least-once, and
// reconcilers are level-based and resync anyway.
type dispatcher struct {
	eventLog events.Log
	runners  []*runner
	log      *zap.Logger
	metrics  *Metrics
}

// subscribe starts following the log where the dispatcher's group stands
// and tells every runner that position.
func (d *dispatcher) subscribe(ctx context.Context) (<-chan *message.Message, error) {
	f, err := events.NewFollower(d.eventLog, events.FollowerConfig{Group: ConsumerGroup, Inherit: LegacyGroupPrefix})
	if err != nil {
		return nil, fmt.Errorf("reconcilers: follow the log: %w", err)
	}
	msgs, err := f.Subscribe(ctx, events.Topic)
	if err != nil {
		return nil, fmt.Errorf("reconcilers: follow the log: %w", err)
	}
	d.metrics.follower.Store(f)
	pos := f.Position()
	for _, rn := range d.runners {
		rn.lastPos.Store(pos)
	}
	d.log.Info("following the log", zap.String("consumer_group", ConsumerGroup), zap.Int64("position", pos))
	return msgs, nil
}

// run dispatches every message until msgs closes, acking each once every
// reconciler has queued its keys.
func (d *dispatcher) run(msgs <-chan *message.Message) {
	for msg := range msgs {
		d.dispatch(msg)
		msg.Ack()
	}
}

func (d *dispatcher) dispatch(msg *message.Message) {
	// The head announced by the last commit, or this record when a commit
	// went unannounced (another process's): lag without a query.
	head, _ := d.eventLog.CommitSignal()
	rec, err := events.RecordFromMessage(msg)
	if err != nil {
		// Unreadable for one is unreadable for all: each sets it aside.
		pos, _ := strconv.ParseInt(msg.Metadata[events.KeyPosition], 10, 64)
		for _, rn := range d.runners {
			rn.setAside(msg.UUID, pos, max(head, pos), err)
		}
		return
	}
	head = max(head, rec.Position)
	for _, rn := range d.runners {
		rn.enqueueFor(rec, head)
	}
}
