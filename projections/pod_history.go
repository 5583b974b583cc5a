package projections

import (
	"context"
	"strings"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// FoldPod folds one logged event of a pod's stream into the pod, as the
// inline view does. Watches and consistent lists use it to rebuild a pod
// as it stood at any log position. A pod seen for the first time is the
// zero Pod.
func FoldPod(p domain.Pod, rec events.Record) (domain.Pod, error) {
	return pods.fold(p, rec)
}

// Rows returns up to limit pods whose keys ("namespace/name") sort after
// after, in key order, finalized ones (tombstones) included, and the log
// head at the moment of reading; limit 0 or less means all of them.
func (v *PodView) Rows(ctx context.Context, after string, limit int) ([]domain.Pod, int64, error) {
	ns, name, _ := strings.Cut(after, "/")
	return decodePods(podRows.After(ctx, v.db, viewstore.Key{Namespace: ns, Name: name}, limit))
}
