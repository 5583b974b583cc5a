package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// kubeletTargets describes the set of kubelets herd polls: one row in
// kubelet_targets for the whole set, as its one stream holds it.
var kubeletTargets = describe(&aggregate[domain.KubeletTargets]{
	of:      domain.KubeletTargetsAggregate,
	fresh:   func(string) domain.KubeletTargets { return domain.KubeletTargets{} },
	load:    loadKubeletTargets,
	version: func(ts domain.KubeletTargets) int64 { return ts.Version },
	// evolve is the domain's Evolve plus the resourceVersion of the
	// target the event touched.
	evolve: func(ts domain.KubeletTargets, rec events.Record, ev domain.Event) domain.KubeletTargets {
		ts = domain.EvolveKubeletTargets(ts, ev)
		if e, ok := ev.(domain.KubeletTargetSet); ok {
			t := ts.Targets[e.Target.Name]
			t.ResourceVersion = rec.Position
			ts.Targets[e.Target.Name] = t // Evolve gave ts a map of its own
		}
		return ts
	},
	upsert: func(ctx context.Context, x execer, _ string, ts domain.KubeletTargets, rv int64) error {
		data, err := json.Marshal(ts)
		if err != nil {
			return fmt.Errorf("encode kubelet targets: %w", err)
		}
		if err := kubeletTargetsRow.Upsert(ctx, x, viewstore.SingleRow{Version: ts.Version, ResourceVersion: rv, Data: data}); err != nil {
			return fmt.Errorf("kubelet target view: %w", err)
		}
		return nil
	},
	tables: []viewTable{{"kubelet_targets", "name"}},
})

// kubeletTargetsKey is the key of the set's one stream.
var kubeletTargetsKey, _ = domain.KubeletTargetsAggregate.Key(domain.KubeletTargetsStream)

// kubeletTargetsRow is the set's row in kubelet_targets behind the
// views' store port, on whichever engine a handle is of.
var kubeletTargetsRow = viewstore.NewSingle("kubelet_targets", "targets")

// loadKubeletTargets reads the set, or domain.ErrNotFound before its
// first event.
func loadKubeletTargets(ctx context.Context, q viewstore.Querier, _ string) (domain.KubeletTargets, error) {
	var ts domain.KubeletTargets
	data, err := kubeletTargetsRow.Get(ctx, q)
	switch {
	case errors.Is(err, viewstore.ErrNoRow):
		return ts, fmt.Errorf("kubelet targets: %w", domain.ErrNotFound)
	case err != nil:
		return ts, fmt.Errorf("load kubelet targets: %w", err)
	}
	return ts, decodeKubeletTargets(data, &ts)
}

func decodeKubeletTargets(data []byte, ts *domain.KubeletTargets) error {
	if err := json.Unmarshal(data, ts); err != nil {
		return fmt.Errorf("decode kubelet targets: %w", err)
	}
	return nil
}

// KubeletTargetView reads the kubelets herd polls.
type KubeletTargetView struct {
	db *viewstore.DB
}

// NewKubeletTargetView returns a KubeletTargetView reading the views beside log.
func NewKubeletTargetView(log events.Log) *KubeletTargetView {
	return &KubeletTargetView{db: viewstore.NewDB(log)}
}

// Targets returns the set of targets (empty before any event) and the log
// head at the moment of reading (a list's resourceVersion), from one
// statement.
func (v *KubeletTargetView) Targets(ctx context.Context) (domain.KubeletTargets, int64, error) {
	var ts domain.KubeletTargets
	data, head, err := kubeletTargetsRow.AtHead(ctx, v.db)
	if err != nil {
		return ts, 0, fmt.Errorf("kubelet target rows: %w", err)
	}
	if data == nil {
		return ts, head, nil
	}
	return ts, head, decodeKubeletTargets(data, &ts)
}

// Get returns the named target, or domain.ErrNotFound.
func (v *KubeletTargetView) Get(ctx context.Context, name string) (domain.KubeletTarget, error) {
	ts, err := loadKubeletTargets(ctx, v.db, kubeletTargetsKey)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return domain.KubeletTarget{}, err
	}
	t, ok := ts.Targets[name]
	if !ok {
		return domain.KubeletTarget{}, fmt.Errorf("kubelet target %q: %w", name, domain.ErrNotFound)
	}
	return t, nil
}
