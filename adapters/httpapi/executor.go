package httpapi

import (
	"context"
	"time"

	"k8s.io/utils/clock"

	"herd/domain"
)

// decided executes an aggregate's commands through its repository's unit
// of work and the domain's decider, reading the clock once per command.
type decided[S, C any] struct {
	update func(ctx context.Context, key domain.Key, decide func(S) ([]domain.Event, error)) (S, error)
	decide func(S, C, time.Time) ([]domain.Event, error)
	clock  clock.PassiveClock
}

// Execute implements executor.
func (d decided[S, C]) Execute(ctx context.Context, key domain.Key, cmd C) (S, error) {
	now := d.clock.Now()
	return d.update(ctx, key, func(st S) ([]domain.Event, error) { return d.decide(st, cmd, now) })
}
