package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"herd/domain"
)

var _ domain.FleetRepository = (*Writer)(nil)

// UpdateFleetHealth implements domain.FleetRepository.
func (w *Writer) UpdateFleetHealth(ctx context.Context, update func(domain.FleetHealth) ([]domain.Event, error)) (domain.FleetHealth, error) {
	var out domain.FleetHealth
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		f, err := loadFleet(ctx, tx)
		if err != nil {
			return err
		}
		evs, err := update(f)
		if err != nil || len(evs) == 0 {
			out = f
			return err
		}
		recs, stored, err := w.appendStored(ctx, tx, domain.FleetHealthStream, f.Version, evs)
		if err != nil {
			return err
		}
		for _, ev := range stored {
			f = domain.EvolveFleet(f, ev)
		}
		rv := recs[len(recs)-1].Position
		out = f
		return storeFleet(ctx, tx, f, rv)
	})
	return out, err
}

// FleetHealth reads the fleet's health; the zero value before any event.
func (v *NodeView) FleetHealth(ctx context.Context) (domain.FleetHealth, error) {
	return loadFleet(ctx, v.db)
}

const upsertFleetSQL = `INSERT INTO fleet_health (name, version, resource_version, data) VALUES ('fleet', ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET version = excluded.version, resource_version = excluded.resource_version, data = excluded.data`

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func storeFleet(ctx context.Context, tx execer, f domain.FleetHealth, resourceVersion int64) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, upsertFleetSQL, f.Version, resourceVersion, data); err != nil {
		return fmt.Errorf("fleet view: %w", err)
	}
	return nil
}

func loadFleet(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (domain.FleetHealth, error) {
	var (
		data []byte
		f    domain.FleetHealth
	)
	err := q.QueryRowContext(ctx, `SELECT data FROM fleet_health WHERE name = 'fleet'`).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("load fleet health: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("decode fleet health: %w", err)
	}
	return f, nil
}
