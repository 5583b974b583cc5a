package reconcilers_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/events"
	"herd/reconcilers"
)

// newApp builds an fx app the way cmd/herd wires the framework, with
// extra options for the reconcilers themselves.
func (h *harness) newApp(cfg reconcilers.Config, mgr **reconcilers.Manager, opts ...fx.Option) *fx.App {
	return fx.New(
		fx.NopLogger,
		fx.Supply(cfg, h.store),
		fx.Provide(
			func() clock.WithTicker { return h.clock },
			zap.NewNop,
			func() *reconcilers.Metrics { return h.metrics },
		),
		fx.Options(opts...),
		reconcilers.Module,
		fx.Populate(mgr),
	)
}

// startApp starts app and stops it when the test ends.
func startApp(t *testing.T, app *fx.App) {
	t.Helper()
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}
	if err := app.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		if err := app.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
}

func TestAReconcilerIsAddedWithOneFxOption(t *testing.T) {
	h := newHarness(t)
	mine := newFakeReconciler("mine")
	// What a user writes: a constructor that takes what it needs from
	// the app.
	newMine := func(store *events.Store, log *zap.Logger) *fakeReconciler { return mine }

	var mgr *reconcilers.Manager
	app := h.newApp(config(), &mgr, reconcilers.Provide(newMine))
	startApp(t, app)

	if diff := cmp.Diff([]string{"mine"}, mgr.Running()); diff != "" {
		t.Errorf("Running() (-want +got):\n%s", diff)
	}
	h.append("node/a", 1)
	h.append("node/b", 2)
	eventually(t, func() bool { return mine.Count("node/a") > 0 && mine.Count("node/b") > 0 },
		"mine reconciles the keys of the appended events; it did %v", mine.seen())
}

func TestReconcilersAreSwitchedOnAndOffByConfiguration(t *testing.T) {
	tests := []struct {
		name    string
		enabled []string
		want    []string
	}{
		{name: "all", enabled: []string{"*"}, want: []string{"mine", "other"}},
		{name: "all but one", enabled: []string{"*", "-mine"}, want: []string{"other"}},
		{name: "only those listed", enabled: []string{"other"}, want: []string{"other"}},
		{name: "none listed", enabled: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			mine, other := newFakeReconciler("mine"), newFakeReconciler("other")
			cfg := config()
			cfg.Enabled = tt.enabled

			var mgr *reconcilers.Manager
			app := h.newApp(cfg, &mgr,
				reconcilers.Provide(func() *fakeReconciler { return mine }),
				reconcilers.Provide(func() reconcilers.Reconciler { return other }),
			)
			startApp(t, app)

			got := mgr.Running()
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Running() (-want +got):\n%s", diff)
			}
			for _, f := range []*fakeReconciler{mine, other} {
				if _, ok := mgr.Status(f.name); ok != slices.Contains(tt.want, f.name) {
					t.Errorf("Status(%q) reports running %t", f.name, ok)
				}
			}

			h.append("node/a", 1)
			// Every running reconciler reconciles node/a and then a
			// barrier; by then one switched off would have had the
			// same chance to reconcile, had it run.
			for _, f := range []*fakeReconciler{mine, other} {
				if slices.Contains(tt.want, f.name) {
					h.settle(f)
				}
			}
			for _, f := range []*fakeReconciler{mine, other} {
				on := slices.Contains(tt.want, f.name)
				if got := f.Count("node/a"); on && got != 1 || !on && len(f.Calls()) != 0 {
					t.Errorf("%s (running %t) reconciled %v", f.name, on, f.Calls())
				}
			}
		})
	}
}

func TestBadConfigurationFailsStartWithTheSettingNamed(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*reconcilers.Config)
		want   []string
	}{
		{
			name:   "unknown name",
			modify: func(c *reconcilers.Config) { c.Enabled = []string{"mine", "nope"} },
			want:   []string{`--reconcilers: no reconciler named "nope"`, "mine"},
		},
		{
			name:   "unknown name switched off",
			modify: func(c *reconcilers.Config) { c.Enabled = []string{"*", "-nope"} },
			want:   []string{`"nope"`},
		},
		{
			name:   "no workers",
			modify: func(c *reconcilers.Config) { c.Workers = 0 },
			want:   []string{"--reconciler-workers 0"},
		},
		{
			name:   "negative retries",
			modify: func(c *reconcilers.Config) { c.MaxRetries = -1 },
			want:   []string{"--reconciler-max-retries -1"},
		},
		{
			name: "every problem at once",
			modify: func(c *reconcilers.Config) {
				c.Enabled = []string{"nope", "-gone"}
				c.Workers = -2
				c.MaxRetries = -1
			},
			want: []string{`"nope"`, `"gone"`, "--reconciler-workers -2", "--reconciler-max-retries -1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			cfg := config()
			tt.modify(&cfg)

			_, err := h.newManager(cfg, newFakeReconciler("mine"))
			if err == nil {
				t.Fatal("NewManager accepted the configuration")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("NewManager: error %q does not mention %q", err, w)
				}
			}

			var mgr *reconcilers.Manager
			app := h.newApp(cfg, &mgr, reconcilers.Provide(func() *fakeReconciler { return newFakeReconciler("mine") }))
			if err := app.Err(); err == nil || !strings.Contains(err.Error(), tt.want[0]) {
				t.Errorf("fx app: error %v, want one mentioning %q", err, tt.want[0])
			}
		})
	}
}

func TestWithoutALogReconcilersRunOnTheirResyncs(t *testing.T) {
	h := newHarness(t)
	f := &fakeResyncer{fakeReconciler: newFakeReconciler("mine"), period: time.Minute, keys: []string{"pod/default/web"}}
	f.behave = func(_ context.Context, key string, n int) (reconcilers.Result, error) {
		if n == 1 {
			return reconcilers.Result{RequeueAfter: 5 * time.Second}, nil
		}
		return reconcilers.Result{}, nil
	}
	var mgr *reconcilers.Manager
	// A node's agent: no *events.Store in the app at all.
	app := fx.New(
		fx.NopLogger,
		fx.Supply(config()),
		fx.Provide(
			func() clock.WithTicker { return h.clock },
			zap.NewNop,
			func() *reconcilers.Metrics { return h.metrics },
		),
		reconcilers.Provide(func() *fakeResyncer { return f }),
		reconcilers.Module,
		fx.Populate(&mgr),
	)
	startApp(t, app)
	// Not in flight any more: the requeue is on the clock before it moves.
	eventually(t, func() bool {
		st, _ := mgr.Status("mine")
		return f.Count("pod/default/web") == 1 && st.InFlight == 0
	}, "the first resync's key is reconciled; reconciled %v", f.seen())
	h.clock.Step(5 * time.Second)
	eventually(t, func() bool { return f.Count("pod/default/web") == 2 }, "the requeue comes; reconciled %v", f.seen())
	h.clock.Step(time.Minute)
	eventually(t, func() bool { return f.Count("pod/default/web") == 3 }, "the next resync comes; reconciled %v", f.seen())
	if st, _ := mgr.Status("mine"); st.Position != 0 {
		t.Errorf("a position in a log there is none of: %+v", st)
	}
}
