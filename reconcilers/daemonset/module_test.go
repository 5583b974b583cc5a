package daemonset

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// TestModule: the module puts the reconciler in the reconcilers' value
// group from what the app provides, with the default configuration
// unless the app gives one.
func TestModule(t *testing.T) {
	sets := newFakeDaemonSets(time.Now)
	pods := newFakePods(time.Now)
	reconcilerstest.CheckModule(t, Module, "daemonset", fx.Provide(
		func() Reader { return sets },
		func() NodeLister { return &fakeNodes{} },
		func() PodLister { return pods },
		func() domain.Executor[domain.Pod, domain.PodCommand] { return pods },
		func() domain.BatchExecutor[domain.Pod, domain.PodCommand] { return pods },
		func() domain.Executor[domain.DaemonSet, domain.DaemonSetCommand] { return sets },
		func() clock.Clock { return clocktesting.NewFakeClock(time.Now()) },
		zap.NewNop,
	),
		reconcilerstest.ModuleCase{Name: "defaults", Extra: fx.Options(), WantResync: 30 * time.Second},
		reconcilerstest.ModuleCase{Name: "a configuration", Extra: fx.Supply(Config{ResyncPeriod: time.Minute, BurstReplicas: 10, RoomRetry: time.Second}), WantResync: time.Minute},
	)
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	err := Config{ResyncPeriod: -time.Second}.Validate()
	for _, want := range []string{"resync period -1s", "burst replicas 0", "room retry 0s"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want it to name %q", err, want)
		}
	}
	if _, err := New(Config{}, nil, nil, nil, nil, nil, clocktesting.NewFakePassiveClock(time.Time{}), zap.NewNop()); err == nil {
		t.Error("New took a configuration Validate refuses")
	}
}

func TestRandomIdentities(t *testing.T) {
	ids := RandomIdentities()
	name := ids.PodName("logs")
	if len(name) != len("logs-")+reconcilers.SuffixLength || !strings.HasPrefix(name, "logs-") || strings.Trim(name[5:], reconcilers.SuffixAlphabet) != "" {
		t.Errorf("name %q", name)
	}
	if got := ids.PodName(strings.Repeat("a", 70)); len(got) != 63 {
		t.Errorf("a long name: %q (%d)", got, len(got))
	}
}

func TestFailedBackoff(t *testing.T) {
	b := newFailedBackoff()
	for _, step := range []struct {
		at   time.Duration
		want time.Duration
	}{{0, 0}, {500 * time.Millisecond, 500 * time.Millisecond}, {time.Second, 0}, {2 * time.Second, time.Second}, {3 * time.Second, 0},
		{time.Hour, 0}} {
		if got := b.wait("k", at(0).Add(step.at)); got != step.want {
			t.Errorf("at %s: wait %s, want %s", step.at, got, step.want)
		}
	}
}
