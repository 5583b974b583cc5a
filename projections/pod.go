package projections

import (
	"context"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
)

// pods describes the pod: its row in pods.
var pods = describe(&aggregate[domain.Pod]{
	of: domain.PodAggregate,
	fresh: func(key string) domain.Pod {
		namespace, name, _ := strings.Cut(key, "/")
		return domain.Pod{Namespace: namespace, Name: name}
	},
	load: func(ctx context.Context, q events.Querier, key string) (domain.Pod, error) {
		namespace, name, _ := strings.Cut(key, "/")
		return loadPod(ctx, q, namespace, name)
	},
	version:  func(p domain.Pod) int64 { return p.Version },
	position: func(p domain.Pod) int64 { return p.ResourceVersion },
	evolve: func(p domain.Pod, rec events.Record, ev domain.Event) domain.Pod {
		p = domain.EvolvePod(p, ev)
		p.ResourceVersion = rec.Position
		return p
	},
	upsert: func(ctx context.Context, x execer, _ string, p domain.Pod, _ int64) error {
		args, err := podRowArgs(p)
		if err != nil {
			return err
		}
		if _, err := x.ExecContext(ctx, upsertPodSQL, args...); err != nil {
			return fmt.Errorf("pod view %s: %w", p.Key(), err)
		}
		return nil
	},
	tables: []viewTable{{"pods", "namespace, name"}},
	observers: func(w *Writer) []Observer[domain.Pod] {
		if !w.unit.Authoritative() {
			return nil
		}
		return w.podObservers
	},
})

var _ domain.PodRepository = (*Writer)(nil)

// UpdatePod implements domain.PodRepository.
func (w *Writer) UpdatePod(ctx context.Context, namespace, name string, update func(domain.Pod) ([]domain.Event, error)) (domain.Pod, error) {
	return pods.update(ctx, w, namespace+"/"+name, update)
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
	err := w.inTx(ctx, func(tx unitTx) error {
		for i, u := range updates {
			p, err := pods.updateTx(ctx, w, tx, u.Namespace+"/"+u.Name, u.Update)
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
	return NewPodView(w.log).Get(ctx, namespace, name)
}

const upsertPodSQL = `INSERT INTO pods (namespace, name, uid, node_name, phase, terminating, finalized, source, version, resource_version, data, controller)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, name) DO UPDATE SET uid = excluded.uid, node_name = excluded.node_name,
  phase = excluded.phase, terminating = excluded.terminating, finalized = excluded.finalized,
  source = excluded.source, version = excluded.version, resource_version = excluded.resource_version,
  data = excluded.data, controller = excluded.controller`

// podRowArgs are the upsert's arguments for p.
func podRowArgs(p domain.Pod) ([]any, error) {
	data, err := marshalStored(p)
	if err != nil {
		return nil, fmt.Errorf("encode pod %s: %w", p.Key(), err)
	}
	return []any{p.Namespace, p.Name, p.UID, p.Spec.NodeName, string(p.Status.Phase), p.Terminating(),
		p.Finalized, string(p.Source), p.Version, p.ResourceVersion, data, ControllerOf(p.Owners)}, nil
}

// ControllerOf names the controller among owners as the pod view's
// controller column and PodFilter.Controllers do: "Kind/name", or "" when
// none of them is a controller.
func ControllerOf(owners []domain.OwnerReference) string {
	for _, o := range owners {
		if o.Controller {
			return o.Kind + "/" + o.Name
		}
	}
	return ""
}

// unmarshalPod rebuilds a pod from its stored row; it is the only way a Pod
// is read back from storage.
func unmarshalPod(data []byte) (domain.Pod, error) {
	var p domain.Pod
	if err := unmarshalStored(data, &p); err != nil {
		return domain.Pod{}, fmt.Errorf("decode pod row: %w", err)
	}
	return p, nil
}

// loadPod reads a pod's row, tombstones included, or domain.ErrNotFound.
func loadPod(ctx context.Context, q events.Querier, namespace, name string) (domain.Pod, error) {
	data, err := rowData(ctx, q, fmt.Sprintf("pod %q", namespace+"/"+name), `SELECT data FROM pods WHERE namespace = ? AND name = ?`, namespace, name)
	if err != nil {
		return domain.Pod{}, err
	}
	return unmarshalPod(data)
}
