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

// deviceBindings describes the binding of a device name: its row in
// device_bindings.
var deviceBindings = describe(&aggregate[domain.DeviceBinding]{
	of:      domain.DeviceAggregate,
	fresh:   func(name string) domain.DeviceBinding { return domain.DeviceBinding{Name: name} },
	load:    loadDeviceBinding,
	version: func(b domain.DeviceBinding) int64 { return b.Version },
	evolve: func(b domain.DeviceBinding, rec events.Record, ev domain.Event) domain.DeviceBinding {
		b = domain.EvolveDevice(b, ev)
		b.ResourceVersion = rec.Position
		return b
	},
	upsert: func(ctx context.Context, x execer, _ string, b domain.DeviceBinding, _ int64) error {
		data, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("encode device binding %s: %w", b.Name, err)
		}
		if err := deviceBindingRows.Upsert(ctx, x, viewstore.DeviceBindingRow{Name: b.Name, Address: b.Address, Version: b.Version, ResourceVersion: b.ResourceVersion, Data: data}); err != nil {
			return fmt.Errorf("device binding view %s: %w", b.Name, err)
		}
		return nil
	},
	tables: []viewTable{{"device_bindings", "name"}},
})

// deviceBindingRows is the device binding view's table behind the views'
// store port, on whichever engine a handle is of.
var deviceBindingRows = viewstore.NewDeviceBindings()

// loadDeviceBinding reads a binding, or domain.ErrNotFound when the name
// was never bound.
func loadDeviceBinding(ctx context.Context, q viewstore.Querier, name string) (domain.DeviceBinding, error) {
	data, err := deviceBindingRows.Get(ctx, q, name)
	switch {
	case errors.Is(err, viewstore.ErrNoRow):
		return domain.DeviceBinding{}, fmt.Errorf("device binding %s: %w", name, domain.ErrNotFound)
	case err != nil:
		return domain.DeviceBinding{}, fmt.Errorf("load device binding %s: %w", name, err)
	}
	var b domain.DeviceBinding
	if err := json.Unmarshal(data, &b); err != nil {
		return domain.DeviceBinding{}, fmt.Errorf("decode device binding %s: %w", name, err)
	}
	return b, nil
}

// DeviceBindingView answers which address each device name is bound to.
type DeviceBindingView struct {
	db *viewstore.DB
}

// NewDeviceBindingView returns a DeviceBindingView reading the views beside log.
func NewDeviceBindingView(log events.Log) *DeviceBindingView {
	return &DeviceBindingView{db: viewstore.NewDB(log)}
}

// Get returns the binding of a name: the zero binding, not an error, when
// it is not bound.
func (v *DeviceBindingView) Get(ctx context.Context, name string) (domain.DeviceBinding, error) {
	b, err := loadDeviceBinding(ctx, v.db, name)
	if errors.Is(err, domain.ErrNotFound) {
		return deviceBindings.fresh(name), nil
	}
	return b, err
}

// List returns the names that are bound, in name order.
func (v *DeviceBindingView) List(ctx context.Context) ([]domain.DeviceBinding, error) {
	return decodeDeviceBindings(deviceBindingRows.Bound(ctx, v.db))
}

// BoundTo returns the bindings of every name bound to address.
func (v *DeviceBindingView) BoundTo(ctx context.Context, address string) ([]domain.DeviceBinding, error) {
	return decodeDeviceBindings(deviceBindingRows.BoundTo(ctx, v.db, address))
}

// decodeDeviceBindings decodes the rows a read of the device binding view
// returns.
func decodeDeviceBindings(data [][]byte, err error) ([]domain.DeviceBinding, error) {
	if err != nil {
		return nil, fmt.Errorf("device bindings: %w", err)
	}
	if len(data) == 0 {
		return nil, nil
	}
	out := make([]domain.DeviceBinding, 0, len(data))
	for _, d := range data {
		var b domain.DeviceBinding
		if err := json.Unmarshal(d, &b); err != nil {
			return nil, fmt.Errorf("decode device binding: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}
