package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"herd/domain"
	"herd/events"
)

var _ domain.KubeletTargetRepository = (*Writer)(nil)

// UpdateKubeletTargets implements domain.KubeletTargetRepository.
func (w *Writer) UpdateKubeletTargets(ctx context.Context, update func(domain.KubeletTargets) ([]domain.Event, error)) (domain.KubeletTargets, error) {
	var out domain.KubeletTargets
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		ts, _, err := loadKubeletTargets(ctx, tx)
		if err != nil {
			return err
		}
		evs, err := update(ts)
		if err != nil || len(evs) == 0 {
			out = ts
			return err
		}
		recs, stored, err := w.appendStored(ctx, tx, domain.KubeletTargetsStream, ts.Version, evs)
		if err != nil {
			return err
		}
		for i, ev := range stored {
			ts = applyKubeletTargets(ts, recs[i], ev)
		}
		out = ts
		return storeKubeletTargets(ctx, tx, ts, recs[len(recs)-1].Position)
	})
	return out, err
}

// applyKubeletTargets folds one logged event into the set of targets: the
// domain's Evolve plus the resourceVersion of the target it touched.
func applyKubeletTargets(ts domain.KubeletTargets, rec events.Record, ev domain.Event) domain.KubeletTargets {
	ts = domain.EvolveKubeletTargets(ts, ev)
	if e, ok := ev.(domain.KubeletTargetSet); ok {
		t := ts.Targets[e.Target.Name]
		t.ResourceVersion = rec.Position
		ts.Targets[e.Target.Name] = t // Evolve gave ts a map of its own
	}
	return ts
}

// KubeletTargetView reads the kubelets herd polls.
type KubeletTargetView struct {
	db *sql.DB
}

// NewKubeletTargetView returns a KubeletTargetView reading db.
func NewKubeletTargetView(db *sql.DB) *KubeletTargetView { return &KubeletTargetView{db: db} }

// Targets returns the set of targets and the log head at the moment of
// reading (a list's resourceVersion), from one statement.
func (v *KubeletTargetView) Targets(ctx context.Context) (domain.KubeletTargets, int64, error) {
	return loadKubeletTargets(ctx, v.db)
}

// Get returns the named target, or domain.ErrNotFound.
func (v *KubeletTargetView) Get(ctx context.Context, name string) (domain.KubeletTarget, error) {
	ts, _, err := loadKubeletTargets(ctx, v.db)
	if err != nil {
		return domain.KubeletTarget{}, err
	}
	t, ok := ts.Targets[name]
	if !ok {
		return domain.KubeletTarget{}, fmt.Errorf("kubelet target %q: %w", name, domain.ErrNotFound)
	}
	return t, nil
}

const upsertKubeletTargetsSQL = `INSERT INTO kubelet_targets (name, version, resource_version, data) VALUES ('targets', ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET version = excluded.version, resource_version = excluded.resource_version, data = excluded.data`

func storeKubeletTargets(ctx context.Context, tx execer, ts domain.KubeletTargets, resourceVersion int64) error {
	data, err := json.Marshal(ts)
	if err != nil {
		return fmt.Errorf("encode kubelet targets: %w", err)
	}
	if _, err := tx.ExecContext(ctx, upsertKubeletTargetsSQL, ts.Version, resourceVersion, data); err != nil {
		return fmt.Errorf("kubelet target view: %w", err)
	}
	return nil
}

// loadKubeletTargets reads the set (empty before any event) and the log
// head.
func loadKubeletTargets(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (domain.KubeletTargets, int64, error) {
	var (
		data []byte
		head int64
		ts   domain.KubeletTargets
	)
	err := q.QueryRowContext(ctx, `SELECT k.data, h.head FROM (SELECT COALESCE(MAX(position), 0) AS head FROM events) h
LEFT JOIN kubelet_targets k ON k.name = 'targets'`).Scan(&data, &head)
	if errors.Is(err, sql.ErrNoRows) || err == nil && data == nil {
		return ts, head, nil
	}
	if err != nil {
		return ts, 0, fmt.Errorf("load kubelet targets: %w", err)
	}
	if err := json.Unmarshal(data, &ts); err != nil {
		return ts, 0, fmt.Errorf("decode kubelet targets: %w", err)
	}
	return ts, head, nil
}
