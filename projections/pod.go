package projections

import (
	"context"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
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
		row, err := podRowOf(p)
		if err != nil {
			return err
		}
		if err := podRows.Upsert(ctx, x, row); err != nil {
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

// podRows is the pod view's table behind the views' store port, on
// whichever engine a handle is of.
var podRows = viewstore.NewPods()

// podRowOf is p's row in the pod view.
func podRowOf(p domain.Pod) (viewstore.PodRow, error) {
	data, err := marshalStored(p)
	if err != nil {
		return viewstore.PodRow{}, fmt.Errorf("encode pod %s: %w", p.Key(), err)
	}
	return viewstore.PodRow{
		Key: viewstore.Key{Namespace: p.Namespace, Name: p.Name}, UID: p.UID, NodeName: p.Spec.NodeName,
		Phase: string(p.Status.Phase), Source: string(p.Source), Controller: ControllerOf(p.Owners),
		Terminating: p.Terminating(), Finalized: p.Finalized,
		Version: p.Version, ResourceVersion: p.ResourceVersion, Data: data,
	}, nil
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
func loadPod(ctx context.Context, q viewstore.Querier, namespace, name string) (domain.Pod, error) {
	data, err := podRows.Get(ctx, q, viewstore.Key{Namespace: namespace, Name: name})
	if err != nil { // the key joined for the error alone
		return decodeRow("pod", namespace+"/"+name, data, err, unmarshalPod)
	}
	return unmarshalPod(data)
}

// decodePods rebuilds the pods of rows read at the log's head.
var decodePods = rowsDecoder("pod rows", unmarshalPod)
