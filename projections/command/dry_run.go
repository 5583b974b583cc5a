package command

import (
	"context"
	"errors"
	"time"

	"herd/domain"
	"herd/events"
)

// DryRun decides cmd on the aggregate at key as it stands and returns the
// state its events would make, appending nothing and writing no row:
// kube-apiserver's dryRun=All. A refusal is the same as Execute's. The
// state keeps the resourceVersion it had, 0 for an object that a dry run
// creates: nothing was written. Another write may get in before a real
// run, which then decides afresh.
func (c *Commands[S, C]) DryRun(ctx context.Context, key domain.Key, cmd C) (S, error) {
	return c.DryRunDeciding(ctx, key, cmd, c.decide)
}

// DryRunDeciding is DryRun with cmd decided by decide rather than the
// kind's own decision: for a command whose decision weighs more than
// its aggregate (a node's mark weighs its lease).
func (c *Commands[S, C]) DryRunDeciding(ctx context.Context, key domain.Key, cmd C, decide func(S, C, time.Time) ([]domain.Event, error)) (S, error) {
	now := c.u.clock.Now()
	k := c.streamKey(key)
	s, err := c.of.Load(ctx, c.u.views, k)
	if errors.Is(err, domain.ErrNotFound) {
		s, err = c.of.Fresh(k), nil
	}
	if err != nil {
		return s, err
	}
	evs, err := decide(s, cmd, now)
	if err != nil {
		return s, err
	}
	stream := c.of.Stream(k)
	version, position := c.of.Version(s), c.of.Position(s)
	for _, ev := range evs {
		version++
		rec := events.Record{Stream: stream, Version: version, Position: position, Type: ev.EventType(), RecordedAt: now}
		// No execer: the state alone, no rows.
		if s, err = c.of.Fold(ctx, nil, k, s, rec, ev); err != nil {
			return s, err
		}
	}
	return s, nil
}
