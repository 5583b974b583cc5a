package domain

import (
	"context"
	"fmt"
	"time"
)

// ConfigMapCommand is a command on one ConfigMap: CreateConfigMap,
// UpdateConfigMap or DeleteConfigMap.
type ConfigMapCommand interface {
	decideConfigMap(c ConfigMap, now time.Time) ([]Event, error)
}

// DecideConfigMap returns the events that cmd causes on ConfigMap c at time
// now, or a typed error (ErrNotFound, ErrAlreadyExists, ErrConflict, or an
// *InvalidError). A rejected command returns no events; no events and no
// error means there is nothing to change.
//
// c is the ConfigMap as the view holds it: the zero ConfigMap (or one with
// only its namespace and name set) when herd never saw it. DecideConfigMap
// neither changes c nor keeps any map of cmd in the events it returns.
func DecideConfigMap(c ConfigMap, cmd ConfigMapCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil configmap command: %w", ErrInvalid)
	}
	return cmd.decideConfigMap(c, now.UTC())
}

// EvolveConfigMap folds one event into the ConfigMap and returns the
// result; the live view and `herd replay` both call it. It never mutates c
// and copies every map it takes from e. It increments Version for every
// event and never touches ResourceVersion, which belongs to the projection.
func EvolveConfigMap(c ConfigMap, e Event) ConfigMap {
	c.Version++
	switch e := e.(type) {
	case ConfigMapCreated:
		return ConfigMap{
			Namespace:        e.Namespace,
			Name:             e.Name,
			UID:              e.UID,
			ConfigMapContent: e.ConfigMapContent.clone(),
			CreatedAt:        e.At,
			Version:          c.Version,
			ResourceVersion:  c.ResourceVersion,
		}
	case ConfigMapUpdated:
		c.ConfigMapContent = e.ConfigMapContent.clone()
	case ConfigMapDeleted:
		return ConfigMap{
			Namespace:       c.Namespace,
			Name:            c.Name,
			Deleted:         true,
			Version:         c.Version,
			ResourceVersion: c.ResourceVersion,
		}
	}
	return c
}

// ConfigMapRepository is how the world outside the domain stores
// ConfigMaps. The domain declares it; projections implement it.
type ConfigMapRepository interface {
	// UpdateConfigMap runs update on the ConfigMap's current state (the
	// zero ConfigMap with Version 0 when herd never saw it) in one
	// transaction and appends what it returns, as UpdateNode does. It
	// returns the ConfigMap as it stands afterwards.
	UpdateConfigMap(ctx context.Context, namespace, name string, update func(ConfigMap) ([]Event, error)) (ConfigMap, error)
}

// requireConfigMap returns ErrNotFound unless the ConfigMap exists.
func requireConfigMap(c ConfigMap) error {
	if c.Exists() {
		return nil
	}
	return fmt.Errorf("configmap %q: %w", c.Name, ErrNotFound)
}
