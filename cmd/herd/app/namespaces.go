package app

import (
	"context"

	"github.com/google/uuid"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"herd/events"
	"herd/projections"
)

// ensureNamespaces creates, as herd starts and before it serves anything,
// the system namespaces (default, kube-system, kube-public,
// kube-node-lease) and every namespace that already holds objects, when
// the log has no record of them: a fresh data directory, or one written
// before herd kept namespaces.
func ensureNamespaces(lc fx.Lifecycle, w *projections.Writer, log *zap.Logger) {
	lc.Append(fx.Hook{OnStart: func(ctx context.Context) error {
		ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd", Source: "serve"})
		created, err := w.EnsureNamespaces(ctx, uuid.NewString)
		if len(created) > 0 {
			log.Info("namespaces created", zap.Strings("namespaces", created))
		}
		return err
	}})
}
