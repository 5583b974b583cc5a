package projections

import (
	"context"
	"database/sql"
	"errors"

	"herd/domain"
)

var _ domain.PodRepository = (*Writer)(nil)

// UpdatePod implements domain.PodRepository.
func (w *Writer) UpdatePod(ctx context.Context, namespace, name string, update func(domain.Pod) ([]domain.Event, error)) (domain.Pod, error) {
	var out domain.Pod
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		p, err := w.updatePodTx(ctx, tx, namespace, name, update)
		out = p
		return err
	})
	return out, err
}

// PodUpdate is one pod's part of UpdatePods.
type PodUpdate struct {
	Namespace, Name string
	Update          func(domain.Pod) ([]domain.Event, error)
}

// UpdatePods runs several pod updates in one transaction: all of them
// commit or none. The scheduler binds its decisions this way, paying for
// one commit per batch rather than one per pod.
func (w *Writer) UpdatePods(ctx context.Context, updates []PodUpdate) ([]domain.Pod, error) {
	out := make([]domain.Pod, len(updates))
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		for i, u := range updates {
			p, err := w.updatePodTx(ctx, tx, u.Namespace, u.Name, u.Update)
			if err != nil {
				return err
			}
			out[i] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetPod implements domain.PodRepository.
func (w *Writer) GetPod(ctx context.Context, namespace, name string) (domain.Pod, error) {
	return NewPodView(w.store.DB()).Get(ctx, namespace, name)
}

func (w *Writer) updatePodTx(ctx context.Context, tx *sql.Tx, namespace, name string, update func(domain.Pod) ([]domain.Event, error)) (domain.Pod, error) {
	p, err := loadPod(ctx, tx, namespace, name)
	if errors.Is(err, domain.ErrNotFound) {
		p, err = domain.Pod{Namespace: namespace, Name: name}, nil
	}
	if err != nil {
		return p, err
	}
	evs, err := update(p)
	if err != nil || len(evs) == 0 {
		return p, err
	}
	recs, stored, err := w.appendStored(ctx, tx, domain.PodStream(namespace, name), p.Version, evs)
	if err != nil {
		return p, err
	}
	for i, rec := range recs {
		p = applyPod(p, rec, stored[i])
	}
	args, err := podRowArgs(p)
	if err != nil {
		return p, err
	}
	if _, err := tx.ExecContext(ctx, upsertPodSQL, args...); err != nil {
		return p, err
	}
	return p, nil
}
