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

// fleet describes the fleet's health: one row in fleet_health, as its one
// stream holds it.
var fleet = describe(&aggregate[domain.FleetHealth]{
	of:      domain.FleetAggregate,
	fresh:   func(string) domain.FleetHealth { return domain.FleetHealth{} },
	load:    loadFleet,
	version: func(f domain.FleetHealth) int64 { return f.Version },
	evolve: func(f domain.FleetHealth, _ events.Record, ev domain.Event) domain.FleetHealth {
		return domain.EvolveFleet(f, ev)
	},
	upsert: func(ctx context.Context, x execer, _ string, f domain.FleetHealth, rv int64) error {
		data, err := json.Marshal(f)
		if err != nil {
			return fmt.Errorf("encode fleet health: %w", err)
		}
		if err := fleetRow.Upsert(ctx, x, viewstore.SingleRow{Version: f.Version, ResourceVersion: rv, Data: data}); err != nil {
			return fmt.Errorf("fleet view: %w", err)
		}
		return nil
	},
	tables: []viewTable{{"fleet_health", "name"}},
	// The health rules read the fleet's health at every node's reconcile
	// and every monitor pass: remembered like a node, so that a read of
	// it reads no row (NodeView.FleetHealth).
	cached: true,
})

// fleetKey is the key of the fleet's one stream.
var fleetKey, _ = domain.FleetAggregate.Key(domain.FleetHealthStream)

// FleetHealth reads the fleet's health; the zero value before any event.
// A view that remembers answers from the unit of work's memory where it
// holds the fleet as last committed (currentFleet), else from the row.
func (v *NodeView) FleetHealth(ctx context.Context) (domain.FleetHealth, error) {
	if f, ok := v.w.currentFleet(); ok {
		return f, nil
	}
	f, err := loadFleet(ctx, v.db, fleetKey)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.FleetHealth{}, nil
	}
	return f, err
}

// currentFleet is the fleet's health as this herd last committed it,
// when the unit of work holds it and is authoritative for it (see
// currentNode). A nil w holds nothing.
func (w *Writer) currentFleet() (domain.FleetHealth, bool) {
	if w == nil {
		return domain.FleetHealth{}, false
	}
	s, ok := w.unit.Current(domain.FleetHealthStream)
	if !ok {
		return domain.FleetHealth{}, false
	}
	f, ok := s.(domain.FleetHealth)
	return f, ok
}

// fleetRow is the fleet's row in fleet_health behind the views' store
// port, on whichever engine a handle is of.
var fleetRow = viewstore.NewSingle("fleet_health", "fleet")

// loadFleet reads the fleet's health, or domain.ErrNotFound before its
// first event.
func loadFleet(ctx context.Context, q viewstore.Querier, _ string) (domain.FleetHealth, error) {
	var f domain.FleetHealth
	data, err := fleetRow.Get(ctx, q)
	switch {
	case errors.Is(err, viewstore.ErrNoRow):
		return f, fmt.Errorf("fleet health: %w", domain.ErrNotFound)
	case err != nil:
		return f, fmt.Errorf("load fleet health: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("decode fleet health: %w", err)
	}
	return f, nil
}
