package reconcilerstest

import (
	"context"
	"testing"

	"herd/events"
	"herd/reconcilers"
)

// heldLog is a log whose followers read nothing until the test ends,
// while the views and the log's queries show everything.
type heldLog struct {
	events.Log
}

// ReadAfter waits for ctx before it reads: the follower's way into the
// log.
func (l heldLog) ReadAfter(ctx context.Context, _ int64, _ int) ([]events.Record, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// StartResyncOnly runs r in the framework over e's log, whose records
// are never handed over: only r's first resync, at its start,
// reconciles, and no record queued what it reconciles — as when a resync
// reads a change in the views before the change's record reaches the
// reconciler. What r writes then must name its cause from what it read.
// The framework stops when the test ends.
func StartResyncOnly(t *testing.T, e *Env, r reconcilers.Reconciler) {
	t.Helper()
	StartManager(t, reconcilers.Params{
		Config:      reconcilers.Config{Enabled: []string{"*"}, Workers: 1, MaxRetries: 5},
		Reconcilers: []reconcilers.Reconciler{r},
		Log:         heldLog{Log: e.Log},
		Clock:       e.Clock,
	})
}
