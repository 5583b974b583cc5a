package projections

import (
	"context"
	"errors"
	"time"

	"herd/domain"
	"herd/events"
)

// Evictions is how a pod is evicted within its disruption budget: by the
// Eviction API, and by herd's drain. One eviction is one unit of work
// over two aggregates: the pod and the namespace's budgets are read in
// the transaction that appends the budget's grant (PodDisruptionGranted)
// and the pod's eviction, so both commit or neither does, and a second
// eviction, whether in the same group commit or on another replica,
// decides on the budget as the first left it. On PostgreSQL a replica
// that appended to the budget's stream first makes the other's append
// conflict; that one decides again, as kube-apiserver retries an
// eviction whose update of the budget conflicted.
type Evictions struct {
	w *Writer
}

var _ domain.Executor[domain.Pod, domain.Eviction] = (*Evictions)(nil)

// evictionAttempts bounds how often an eviction is decided again after
// another writer appended to its budget or pod first. kube-apiserver
// tries 20 times, 500 ms apart, against etcd; here a conflict needs a
// second replica writing the same budget in the same instant.
const evictionAttempts = 5

// Evictions is how a pod is evicted within its disruption budget; it
// also decides an eviction as a dry run (Evictions.DryRun).
func (w *Writer) Evictions() domain.Executor[domain.Pod, domain.Eviction] { return &Evictions{w: w} }

// Execute implements domain.Executor: it evicts the pod at key with
// cmd.Command once the pod's budget, if any, grants it, and returns the
// pod as it then stands. A budget that refuses returns its
// *domain.EvictionRefusedError, and nothing is written.
func (e *Evictions) Execute(ctx context.Context, key domain.Key, cmd domain.Eviction) (domain.Pod, error) {
	var (
		p   domain.Pod
		err error
	)
	for range evictionAttempts {
		p, err = e.once(ctx, key, cmd)
		if !errors.Is(err, events.ErrConflict) {
			break
		}
	}
	return p, err
}

func (e *Evictions) once(ctx context.Context, key domain.Key, cmd domain.Eviction) (domain.Pod, error) {
	now := e.w.clock.Now()
	var out domain.Pod
	err := e.w.inTx(ctx, func(tx unitTx) error {
		p, budget, grant, err := plan(ctx, tx.Views(), key, cmd, now)
		if out = p; err != nil {
			return err
		}
		if grant != nil {
			if _, err := podDisruptionBudgets.updateTx(ctx, e.w, tx, budget.String(), func(b domain.PodDisruptionBudget) ([]domain.Event, error) {
				return domain.DecidePodDisruptionBudget(b, grant, now)
			}); err != nil {
				return err
			}
		}
		out, err = pods.updateTx(ctx, e.w, tx, key.String(), func(p domain.Pod) ([]domain.Event, error) {
			return domain.DecidePod(p, cmd.Command, now)
		})
		return err
	})
	return out, err
}

// DryRun decides the eviction as Execute would, budget included, and
// returns the pod as the eviction would leave it, writing nothing: an
// eviction with dryRun=All, as kubectl drain --dry-run=server sends it.
func (e *Evictions) DryRun(ctx context.Context, key domain.Key, cmd domain.Eviction) (domain.Pod, error) {
	now := e.w.clock.Now()
	p, budget, grant, err := plan(ctx, e.w.views, key, cmd, now)
	if err != nil {
		return p, err
	}
	if grant != nil {
		b, err := podDisruptionBudgets.load(ctx, e.w.views, budget.Namespace, budget.Name)
		if err != nil {
			return p, err
		}
		if _, err := domain.DecidePodDisruptionBudget(b, grant, now); err != nil {
			return p, err
		}
	}
	return e.w.cmds().pods.DryRun(ctx, key, cmd.Command)
}

// plan reads the pod at key and its namespace's budgets through q and
// says which budget must grant the eviction, and with which command: none
// when the eviction would not change the pod, or no budget need be
// asked (domain.Eviction.Budget).
func plan(ctx context.Context, q events.Querier, key domain.Key, cmd domain.Eviction, now time.Time) (domain.Pod, domain.Key, domain.PodDisruptionBudgetCommand, error) {
	p, err := pods.load(ctx, q, key.String())
	if errors.Is(err, domain.ErrNotFound) {
		p, err = pods.fresh(key.String()), nil
	}
	if err != nil {
		return p, domain.Key{}, nil, err
	}
	if evs, err := domain.DecidePod(p, cmd.Command, now); err != nil || len(evs) == 0 {
		// Refused, or nothing to do: the pod's own command says so,
		// and no budget is spent on it.
		return p, domain.Key{}, nil, err
	}
	budgets, err := budgetsOf(ctx, q, key.Namespace)
	if err != nil {
		return p, domain.Key{}, nil, err
	}
	budget, grant, err := cmd.Budget(p, budgets)
	return p, budget, grant, err
}
