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

var _ domain.DeviceBindingRepository = (*Writer)(nil)

// UpdateDeviceBinding implements domain.DeviceBindingRepository.
func (w *Writer) UpdateDeviceBinding(ctx context.Context, name string, update func(domain.DeviceBinding) ([]domain.Event, error)) (domain.DeviceBinding, error) {
	var out domain.DeviceBinding
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		b, err := loadDeviceBinding(ctx, tx, name)
		if err != nil {
			return err
		}
		evs, err := update(b)
		if err != nil || len(evs) == 0 {
			out = b
			return err
		}
		recs, stored, err := w.appendStored(ctx, tx, domain.DeviceStream(name), b.Version, evs)
		if err != nil {
			return err
		}
		for i, rec := range recs {
			b = applyDeviceBinding(b, rec, stored[i])
		}
		out = b
		return storeDeviceBinding(ctx, tx, b)
	})
	return out, err
}

func applyDeviceBinding(b domain.DeviceBinding, rec events.Record, ev domain.Event) domain.DeviceBinding {
	b = domain.EvolveDevice(b, ev)
	b.ResourceVersion = rec.Position
	return b
}

const upsertDeviceBindingSQL = `INSERT INTO device_bindings (name, address, version, resource_version, data) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET address = excluded.address, version = excluded.version,
  resource_version = excluded.resource_version, data = excluded.data`

func storeDeviceBinding(ctx context.Context, tx execer, b domain.DeviceBinding) error {
	data, err := json.Marshal(b)
	if err != nil {
		return fmt.Errorf("encode device binding %s: %w", b.Name, err)
	}
	if _, err := tx.ExecContext(ctx, upsertDeviceBindingSQL, b.Name, b.Address, b.Version, b.ResourceVersion, data); err != nil {
		return fmt.Errorf("device binding view %s: %w", b.Name, err)
	}
	return nil
}

// loadDeviceBinding reads a binding, the zero binding (with its name) when
// the name was never bound.
func loadDeviceBinding(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, name string) (domain.DeviceBinding, error) {
	var data []byte
	err := q.QueryRowContext(ctx, `SELECT data FROM device_bindings WHERE name = ?`, name).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.DeviceBinding{Name: name}, nil
	}
	if err != nil {
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
	db *sql.DB
}

// NewDeviceBindingView returns a DeviceBindingView reading db.
func NewDeviceBindingView(db *sql.DB) *DeviceBindingView { return &DeviceBindingView{db: db} }

// Get returns the binding of a name: the zero binding, not an error, when
// it is not bound.
func (v *DeviceBindingView) Get(ctx context.Context, name string) (domain.DeviceBinding, error) {
	return loadDeviceBinding(ctx, v.db, name)
}

// List returns the names that are bound, in name order.
func (v *DeviceBindingView) List(ctx context.Context) ([]domain.DeviceBinding, error) {
	return v.query(ctx, `SELECT data FROM device_bindings WHERE address <> '' ORDER BY name`)
}

// BoundTo returns the bindings of every name bound to address.
func (v *DeviceBindingView) BoundTo(ctx context.Context, address string) ([]domain.DeviceBinding, error) {
	if address == "" {
		return nil, nil
	}
	return v.query(ctx, `SELECT data FROM device_bindings WHERE address = ? ORDER BY name`, address)
}

func (v *DeviceBindingView) query(ctx context.Context, q string, args ...any) ([]domain.DeviceBinding, error) {
	rows, err := v.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("device bindings: %w", err)
	}
	defer rows.Close()
	var out []domain.DeviceBinding
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("device bindings: %w", err)
		}
		var b domain.DeviceBinding
		if err := json.Unmarshal(data, &b); err != nil {
			return nil, fmt.Errorf("decode device binding: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}
