package command

import (
	"context"
	"errors"
	"time"

	"herd/domain"
)

// Commands is the application's one way to issue a command to aggregates
// of state S with commands C: Execute reads the unit's clock once,
// decides the command with the domain's decide function inside the
// aggregate's unit of work (load, decide, append, fold, write the rows,
// commit), and returns the state afterwards. The actor and cause recorded
// with the events come from ctx (events.WithMetadata). It implements
// domain.Executor and domain.BatchExecutor.
type Commands[S, C any] struct {
	u      *Unit
	of     Aggregate[S]
	decide func(S, C, time.Time) ([]domain.Event, error)
	// key turns a domain.Key into the aggregate's stream key; nil is
	// Key.String. The aggregates of which there is one map the zero Key
	// to their one stream.
	key func(domain.Key) string
}

// NewCommands is the Commands of the aggregate a on u, deciding with
// decide; key turns a domain.Key into a's key (nil: Key.String).
func NewCommands[S, C any](u *Unit, a Aggregate[S], decide func(S, C, time.Time) ([]domain.Event, error), key func(domain.Key) string) *Commands[S, C] {
	return &Commands[S, C]{u: u, of: a, decide: decide, key: key}
}

var (
	_ domain.Executor[domain.Pod, domain.PodCommand]      = (*Commands[domain.Pod, domain.PodCommand])(nil)
	_ domain.BatchExecutor[domain.Pod, domain.PodCommand] = (*Commands[domain.Pod, domain.PodCommand])(nil)
)

// Execute implements domain.Executor. A command that only creates its
// aggregate (domain.Creation) runs as Create.
func (c *Commands[S, C]) Execute(ctx context.Context, key domain.Key, cmd C) (S, error) {
	now := c.u.clock.Now()
	decide := func(s S) ([]domain.Event, error) { return c.decide(s, cmd, now) }
	if cr, ok := any(cmd).(domain.Creation); ok && cr.CreatesOnly() {
		return Create(ctx, c.u, c.of, c.streamKey(key), decide)
	}
	return Update(ctx, c.u, c.of, c.streamKey(key), decide)
}

// ExecuteBatch implements domain.BatchExecutor: every command in one
// transaction, each on its own aggregate and decided on it as the ones
// before it in the batch left it. The scheduler binds its decisions this
// way, paying for one commit per batch rather than one per pod.
func (c *Commands[S, C]) ExecuteBatch(ctx context.Context, cmds []domain.Keyed[C]) ([]S, []error, error) {
	return ExecuteBatch(ctx, c.u, cmds, c.decide, func(tx Tx, k domain.Keyed[C], decide func(S) ([]domain.Event, error)) (S, error) {
		return UpdateTx(ctx, c.u, c.of, tx, c.streamKey(k.Key), decide)
	})
}

// ExecuteBatch runs cmds in one transaction of u, each decided with
// decide on its aggregate as update loads it, as the ones before it in
// the batch left it; a lenient command's conflict or invalidity is
// answered in refused (nil when none was) instead of failing the batch.
func ExecuteBatch[S, C any](ctx context.Context, u *Unit, cmds []domain.Keyed[C], decide func(S, C, time.Time) ([]domain.Event, error),
	update func(tx Tx, k domain.Keyed[C], decide func(S) ([]domain.Event, error)) (S, error)) ([]S, []error, error) {
	now := u.clock.Now()
	out := make([]S, len(cmds))
	var refused []error
	err := u.Do(ctx, func(tx Tx) error {
		refused = nil // a retried transaction decides afresh
		for i, k := range cmds {
			s, err := update(tx, k, func(s S) ([]domain.Event, error) {
				evs, err := decide(s, k.Command, now)
				if k.Lenient && (errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrInvalid)) {
					if refused == nil {
						refused = make([]error, len(cmds))
					}
					refused[i] = err
					return nil, nil
				}
				if refused != nil {
					// Decided again (on the row rather than a remembered
					// state): only the last decision counts.
					refused[i] = nil
				}
				return evs, err
			})
			if err != nil {
				return err
			}
			out[i] = s
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, refused, nil
}

func (c *Commands[S, C]) streamKey(k domain.Key) string {
	if c.key != nil {
		return c.key(k)
	}
	return k.String()
}

// Singleton maps every Key to key: the aggregates of which there is one.
func Singleton(key string) func(domain.Key) string {
	return func(domain.Key) string { return key }
}
