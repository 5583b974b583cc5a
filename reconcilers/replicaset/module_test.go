package replicaset

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
	sets := newFakeReplicaSets(time.Now)
	pods := newFakePods(time.Now)
	reconcilerstest.CheckModule(t, Module, "replicaset", fx.Provide(
		func() Reader { return sets },
		func() PodLister { return pods },
		func() domain.Executor[domain.Pod, domain.PodCommand] { return pods },
		func() domain.BatchExecutor[domain.Pod, domain.PodCommand] { return pods },
		func() domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand] { return sets },
		func() clock.Clock { return clocktesting.NewFakeClock(time.Now()) },
		zap.NewNop,
	),
		reconcilerstest.ModuleCase{Name: "defaults", Extra: fx.Options(), WantResync: 30 * time.Second},
		reconcilerstest.ModuleCase{Name: "a configuration", Extra: fx.Supply(Config{ResyncPeriod: time.Minute, BurstReplicas: 10}), WantResync: time.Minute},
	)
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	err := Config{ResyncPeriod: -time.Second}.Validate()
	for _, want := range []string{"resync period -1s", "burst replicas 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want it to name %q", err, want)
		}
	}
	if _, err := New(Config{}, nil, nil, nil, nil, clocktesting.NewFakePassiveClock(time.Time{}), zap.NewNop()); err == nil {
		t.Error("New took a configuration Validate refuses")
	}
}

func TestRandomIdentities(t *testing.T) {
	ids := reconcilers.RandomIdentities()
	name := ids.PodName("web")
	if len(name) != len("web-")+reconcilers.SuffixLength || !strings.HasPrefix(name, "web-") || strings.Trim(name[4:], reconcilers.SuffixAlphabet) != "" {
		t.Errorf("name %q", name)
	}
	if uid := ids.UID(); len(uid) != 36 {
		t.Errorf("uid %q", uid)
	}
	long := strings.Repeat("a", 70)
	if got := ids.PodName(long); len(got) != 63 || !strings.HasPrefix(got, long[:reconcilers.MaxGeneratedBase]) {
		t.Errorf("a long name: %q (%d)", got, len(got))
	}
}
