package reconcilerstest

import (
	"testing"
	"time"

	"go.uber.org/fx"

	"herd/reconcilers"
)

// ModuleCase is one start of a reconciler's fx module: what the app
// supplies beside what the reconciler reads and writes through (its
// settings, or nothing), and the resync period the reconciler then has.
type ModuleCase struct {
	Name       string
	Extra      fx.Option
	WantResync time.Duration
}

// CheckModule starts module, with provided (what the reconciler reads
// and writes through, as the app provides it) and each case's Extra, and
// checks that it puts one reconciler called name, resynced as the case
// says, in the reconcilers' value group.
func CheckModule(t *testing.T, module fx.Option, name string, provided fx.Option, cases ...ModuleCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			var got struct {
				fx.In
				All []reconcilers.Reconciler `group:"reconcilers"`
			}
			app := fx.New(fx.NopLogger, provided, tt.Extra, module, fx.Populate(&got))
			if err := app.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got.All) != 1 || got.All[0].Name() != name {
				t.Fatalf("group: %v", got.All)
			}
			if rs, ok := got.All[0].(reconcilers.Resyncer); !ok || rs.ResyncPeriod() != tt.WantResync {
				t.Errorf("resync period: %v", got.All[0])
			}
		})
	}
}
