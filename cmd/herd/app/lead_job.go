package app

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"herd/events"
)

// leadRetry is how often a replica that does not lead a job asks to, as
// the reconcilers' replicas do: another replica takes over within this
// of PostgreSQL freeing a dead leader's lock. Wall-clock time: it paces
// questions to a database, not the domain's clock.
const leadRetry = 2 * time.Second

// stepAside is how long a replica that lost a job waits before it asks
// again, so that the others, which ask every leadRetry, have the first
// turn.
const stepAside = 2 * leadRetry

// leadJob runs run for each term in which this replica leads job, until
// ctx ends. run's context ends when the term does (its session with the
// database failed, say); run must then return. On SQLite the first
// TryLead leads at once, for good. leading, when set, is told whenever
// this replica takes or loses the job.
func leadJob(ctx context.Context, l events.Leadership, job string, log *zap.Logger, leading func(bool), run func(ctx context.Context)) {
	if leading == nil {
		leading = func(bool) {}
	}
	leading(false)
	var (
		wait time.Duration // before asking: none at start
		told error         // what was logged last, so that a wait is logged once
	)
	for {
		if wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		wait = leadRetry
		term, err := l.TryLead(ctx, job)
		switch {
		case err == nil:
			told = nil
			leading(true)
			lost := runTerm(ctx, term, run)
			leading(false)
			if !lost {
				return
			}
			log.Warn("this replica no longer leads the job; it stops here until it leads it again", zap.String("job", job))
			wait = stepAside
		case ctx.Err() != nil:
			return
		case errors.Is(err, events.ErrLedElsewhere):
			if !errors.Is(told, events.ErrLedElsewhere) {
				who, _, _ := l.Leader(ctx, job)
				log.Info("another replica leads the job; this one takes over if it goes",
					zap.String("job", job), zap.String("leader", who.Replica), zap.Time("since", who.Since))
			}
			told = err
		default:
			if told == nil || errors.Is(told, events.ErrLedElsewhere) {
				log.Warn("cannot ask to lead the job; asking again", zap.String("job", job), zap.Error(err), zap.Duration("every", leadRetry))
			}
			told = err
		}
	}
}

// runTerm runs run until ctx ends or term is lost, then releases term.
// It says whether the term was lost (rather than ctx ended).
func runTerm(ctx context.Context, term events.Term, run func(ctx context.Context)) (lost bool) {
	termCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(termCtx)
	}()
	select {
	case <-ctx.Done():
	case <-term.Lost():
		lost = true
	case <-done:
	}
	cancel()
	<-done
	_ = term.Release()
	return lost && ctx.Err() == nil
}

// jobLeader says who leads one job, for /readyz?verbose.
type jobLeader struct {
	l   events.Leadership
	job string
}

func (j jobLeader) Leader(ctx context.Context) (events.Leader, bool, error) {
	return j.l.Leader(ctx, j.job)
}
