package projections

import (
	"context"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
)

// FoldPod folds one logged event of a pod's stream into the pod, as the
// inline view does. Watches and consistent lists use it to rebuild a pod
// as it stood at any log position. A pod seen for the first time is the
// zero Pod.
func FoldPod(p domain.Pod, rec events.Record) (domain.Pod, error) {
	namespace, name, ok := podStreamKey(rec.Stream)
	if !ok {
		return p, fmt.Errorf("fold pod: %s@%d is not a pod's stream", rec.Stream, rec.Version)
	}
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return p, fmt.Errorf("fold %s@%d: %w", rec.Stream, rec.Version, err)
	}
	if p.Name == "" {
		p.Namespace, p.Name = namespace, name
	}
	return applyPod(p, rec, ev), nil
}

// Rows returns up to limit pods whose keys ("namespace/name") sort after
// after, in key order, finalized ones (tombstones) included, and the log
// head at the moment of reading; limit 0 or less means all of them. Rows
// and head come from one SQL statement, so they are consistent.
func (v *PodView) Rows(ctx context.Context, after string, limit int) ([]domain.Pod, int64, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	// Namespaces and names are DNS labels and subdomains: no "/" in either,
	// so "namespace/name" orders as (namespace, name) does.
	ns, name, _ := strings.Cut(after, "/")
	rows, err := v.db.QueryContext(ctx, `SELECT p.data, h.head FROM (SELECT COALESCE(MAX(position), 0) AS head FROM events) h
LEFT JOIN (SELECT namespace, name, data FROM pods WHERE (namespace, name) > (?, ?) ORDER BY namespace, name LIMIT ?) p
ORDER BY p.namespace, p.name`, ns, name, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("pod rows after %q: %w", after, err)
	}
	defer rows.Close()
	var (
		out  []domain.Pod
		head int64
	)
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data, &head); err != nil {
			return nil, 0, fmt.Errorf("pod rows after %q: %w", after, err)
		}
		if data == nil {
			continue
		}
		p, err := unmarshalPod(data)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	return out, head, rows.Err()
}
