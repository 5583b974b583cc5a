package app

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"herd/adapters/herdclient"
	"herd/adapters/host"
	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
	"herd/domain"
	"herd/events/eventstest"
)

// zfsBusy is zfs finding the pool busy, as it says it.
const zfsBusy = "cannot create 'rpool/herd/zones/herd-default.web': pool is busy"

// zoneDataset starts the command that makes the pod's zone dataset.
const zoneDataset = "zfs create rpool/herd/zones/herd-default.web-"

func TestAnAgentRetriesABusyCommandAndFailsThePodOnlyAfterTheLimit(t *testing.T) {
	tests := []struct {
		name     string
		failures int
		want     domain.PodPhase
	}{
		{"busy twice, then free", 2, domain.PodRunning},
		{"busy for good", 10, domain.PodFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := startServe(t)
			h := illumostest.NewHost()
			for range tt.failures {
				h.FailNext(zoneDataset, zfsBusy)
			}
			cfg := DefaultAgentConfig()
			cfg.Server, cfg.LogLevel, cfg.PollInterval, cfg.MetricsListen = url, "error", 20*time.Millisecond, ""
			cfg.Node.Name, cfg.Node.Runtime, cfg.Node.HeartbeatInterval = "zone-01", RuntimeIllumos, time.Second
			cfg.Node.Illumos.Retry = illumos.Retry{Attempts: 3, Backoff: time.Millisecond}
			startApp(t, fx.New(AgentOptions(cfg,
				fx.Decorate(func(illumos.Runner) illumos.Runner { return h }),
				fx.Decorate(func(host.Source) host.Source { return &fakeHost{} }),
			), fx.NopLogger))
			c, err := herdclient.New(herdclient.Config{Server: url})
			if err != nil {
				t.Fatal(err)
			}
			post(t, url+"/api/v1/namespaces/default/pods", `{"metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"busybox"}]}}`)
			var got domain.Pod
			eventstest.Eventually(t, eventstest.WaitFor, func() bool {
				got, err = c.Pod(t.Context(), "default", "web")
				return err == nil && (got.Status.Phase == domain.PodRunning || got.Status.Phase == domain.PodFailed)
			}, "the pod runs or fails")
			if got.Status.Phase != tt.want {
				t.Fatalf("pod %s (%s), want %s", got.Status.Phase, got.Status.Message, tt.want)
			}
			if tt.want == domain.PodFailed && (!strings.Contains(got.Status.Message, "pool is busy") || !strings.Contains(got.Status.Message, "after 3 attempts")) {
				t.Errorf("message %q, want zfs's own after 3 attempts", got.Status.Message)
			}
			runs := 0
			for _, c := range h.Commands() {
				if strings.HasPrefix(c.String(), zoneDataset) {
					runs++
				}
			}
			if want := min(tt.failures+1, 3); runs != want {
				t.Errorf("%s... ran %d times, want %d", zoneDataset, runs, want)
			}
		})
	}
}
