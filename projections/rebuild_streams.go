package projections

import (
	"context"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
)

// streamRebuild folds the ConfigMap and device-binding streams in memory
// during a rebuild and writes each row once at the end, as nodeRebuild
// does for nodes.
type streamRebuild struct {
	configMaps map[string]domain.ConfigMap
	devices    map[string]domain.DeviceBinding
}

func newStreamRebuild() *streamRebuild {
	return &streamRebuild{configMaps: map[string]domain.ConfigMap{}, devices: map[string]domain.DeviceBinding{}}
}

// otherStream reports whether streamRebuild folds the stream.
func otherStream(stream string) bool {
	return strings.HasPrefix(stream, "configmap/") || strings.HasPrefix(stream, "device/")
}

func (r *streamRebuild) apply(rec events.Record, ev domain.Event) {
	switch {
	case strings.HasPrefix(rec.Stream, "configmap/"):
		r.configMaps[rec.Stream] = applyConfigMap(r.configMaps[rec.Stream], rec, ev)
	case strings.HasPrefix(rec.Stream, "device/"):
		r.devices[rec.Stream] = applyDeviceBinding(r.devices[rec.Stream], rec, ev)
	}
}

func (r *streamRebuild) flush(ctx context.Context, tx execer) error {
	for stream, cm := range r.configMaps {
		// A stream whose first event is not ConfigMapCreated has no name
		// to store under: a corrupt log, not something to guess at.
		if cm.Namespace == "" || cm.Name == "" {
			return fmt.Errorf("rebuild: %s: the stream does not start with ConfigMapCreated", stream)
		}
		if err := storeConfigMap(ctx, tx, cm); err != nil {
			return fmt.Errorf("rebuild: %w", err)
		}
	}
	for stream, b := range r.devices {
		if b.Name == "" {
			return fmt.Errorf("rebuild: %s: the stream does not start with DeviceBound", stream)
		}
		if err := storeDeviceBinding(ctx, tx, b); err != nil {
			return fmt.Errorf("rebuild: %w", err)
		}
	}
	return nil
}
