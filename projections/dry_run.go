package projections

import (
	"context"
	"errors"

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
	now := c.w.clock.Now()
	k := c.streamKey(key)
	s, err := c.of.load(ctx, c.w.views, k)
	if errors.Is(err, domain.ErrNotFound) {
		s, err = c.of.fresh(k), nil
	}
	if err != nil {
		return s, err
	}
	evs, err := c.decide(s, cmd, now)
	if err != nil {
		return s, err
	}
	stream := c.of.of.Stream(k)
	version, position := c.of.version(s), int64(0)
	if c.of.position != nil {
		position = c.of.position(s)
	}
	for _, ev := range evs {
		version++
		rec := events.Record{Stream: stream, Version: version, Position: position, Type: ev.EventType(), RecordedAt: now}
		s = c.of.evolve(s, rec, ev)
	}
	return s, nil
}
