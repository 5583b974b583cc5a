package reconcilerstest

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"herd/events/eventstest"
	"herd/reconcilers"
)

// StartManager runs p's reconcilers in the framework, as herd serve does,
// until the test ends: p says what they follow (Store or Log) and by which
// clock; what it leaves unset is a test's default (every reconciler on,
// workers, no logs, metrics of a registry of its own).
func StartManager(t *testing.T, p reconcilers.Params) *reconcilers.Manager {
	t.Helper()
	if p.Config.Enabled == nil {
		p.Config = reconcilers.Config{Enabled: []string{"*"}, Workers: 2, MaxRetries: 5}
	}
	if p.Logger == nil {
		p.Logger = zap.NewNop()
	}
	if p.Metrics == nil {
		p.Metrics = reconcilers.NewMetrics(prometheus.NewRegistry())
	}
	m, err := reconcilers.NewManager(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), eventstest.WaitFor)
		defer cancel()
		if err := m.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
	return m
}
