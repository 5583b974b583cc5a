package app

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/fx"

	"herd/reconcilers"
)

// TestServeReconcilersListed: the names the configuration is checked
// against are the reconcilers herd serve builds.
func TestServeReconcilersListed(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = t.TempDir()
	var m *reconcilers.Manager
	a := fx.New(Options(cfg, fx.Populate(&m)), fx.NopLogger)
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(m.Running()))
	if diff := cmp.Diff(slices.Sorted(slices.Values(ServeReconcilers)), got); diff != "" {
		t.Errorf("ServeReconcilers differ from what herd serve runs (-listed +built):\n%s", diff)
	}
}
