package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
)

// applyPod folds one logged pod event into the pod, as applyNode does for
// nodes.
func applyPod(p domain.Pod, rec events.Record, ev domain.Event) domain.Pod {
	p = domain.EvolvePod(p, ev)
	p.ResourceVersion = rec.Position
	return p
}

// podStreamKey splits "pod/NAMESPACE/NAME"; ok is false for other streams.
func podStreamKey(stream string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(stream, "pod/")
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, "/")
	return namespace, name, ok
}

const upsertPodSQL = `INSERT INTO pods (namespace, name, uid, node_name, phase, terminating, finalized, source, version, resource_version, data)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, name) DO UPDATE SET uid = excluded.uid, node_name = excluded.node_name,
  phase = excluded.phase, terminating = excluded.terminating, finalized = excluded.finalized,
  source = excluded.source, version = excluded.version, resource_version = excluded.resource_version,
  data = excluded.data`

// podRowArgs are the upsert's arguments for p.
func podRowArgs(p domain.Pod) ([]any, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode pod %s: %w", p.Key(), err)
	}
	return []any{p.Namespace, p.Name, p.UID, p.Spec.NodeName, string(p.Status.Phase), p.Terminating(),
		p.Finalized, string(p.Source), p.Version, p.ResourceVersion, data}, nil
}

// unmarshalPod rebuilds a pod from its stored row; it is the only way a Pod
// is read back from storage.
func unmarshalPod(data []byte) (domain.Pod, error) {
	var p domain.Pod
	if err := json.Unmarshal(data, &p); err != nil {
		return domain.Pod{}, fmt.Errorf("decode pod row: %w", err)
	}
	return p, nil
}

// loadPod reads a pod's row, tombstones included, or domain.ErrNotFound.
func loadPod(ctx context.Context, q events.Querier, namespace, name string) (domain.Pod, error) {
	rows, err := q.QueryContext(ctx, `SELECT data FROM pods WHERE namespace = ? AND name = ?`, namespace, name)
	if err != nil {
		return domain.Pod{}, fmt.Errorf("load pod %s/%s: %w", namespace, name, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return domain.Pod{}, fmt.Errorf("load pod %s/%s: %w", namespace, name, err)
		}
		return domain.Pod{}, fmt.Errorf("pod %q: %w", namespace+"/"+name, domain.ErrNotFound)
	}
	var data []byte
	if err := rows.Scan(&data); err != nil {
		return domain.Pod{}, fmt.Errorf("load pod %s/%s: %w", namespace, name, err)
	}
	return unmarshalPod(data)
}
