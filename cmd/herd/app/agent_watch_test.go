package app

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/herdclient"
	"herd/adapters/host"
	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
	"herd/domain"
	"herd/events/eventstest"
	"herd/reconcilers"
)

// TestAPodReachesTheAgentWithoutWaitingForAPoll runs an agent whose poll
// interval is an hour: only its watch can bring it the pod, created after
// its start, in time.
func TestAPodReachesTheAgentWithoutWaitingForAPoll(t *testing.T) {
	url := startServe(t)
	h := illumostest.NewHost()
	cfg := agentConfig(url)
	cfg.PollInterval = time.Hour
	startApp(t, fx.New(AgentOptions(cfg,
		fx.Decorate(func(illumos.Runner) illumos.Runner { return h }),
		fx.Decorate(func(host.Source) host.Source { return &fakeHost{} }),
	), fx.NopLogger))
	c, err := herdclient.New(herdclient.Config{Server: url})
	if err != nil {
		t.Fatal(err)
	}
	post(t, url+"/api/v1/namespaces/default/pods", `{"metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"busybox"}]}}`)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		p, err := c.Pod(t.Context(), "default", "web")
		return err == nil && p.Status.Phase == domain.PodRunning
	}, "the pod runs within seconds, not at the next poll an hour away")
}

// TestTheAgentListsAgainAfter410 resumes the agent's watch from a
// resourceVersion older than the history a real herd keeps: herd answers
// 410 Expired, and the follower lists the node's pods again and queues
// them. The app's reconcilers may still be writing events stamped before
// the clock's step when the follower lists, so its next watch may be
// expired too and list once more: a second list is right, not a failure.
// (CI failed here once, 30 s without the pod queued; either this or a
// wait on the fake clock, below, explains it.)
func TestTheAgentListsAgainAfter410(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	var srv *HTTPServer
	startApp(t, fx.New(Options(cfg, fx.Populate(&srv),
		fx.Decorate(func(clock.WithTicker) clock.WithTicker { return clk })), fx.NopLogger))
	post(t, srv.URL()+"/api/v1/nodes", `{"metadata":{"name":"zone-01"}}`)
	post(t, srv.URL()+"/api/v1/namespaces/default/pods", `{"metadata":{"name":"web"},"spec":{"nodeName":"zone-01","containers":[{"name":"app","image":"busybox"}]}}`)
	c, err := herdclient.New(herdclient.Config{Server: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	// Everything since position 1 is older than herd's history now.
	clk.Step(cfg.Watch.History + time.Minute)

	var (
		mu     sync.Mutex
		queued []string
	)
	var relists atomic.Int32
	// The follower's own waits (a watch that broke for another reason,
	// as a loaded machine can have it answered) run on the real clock:
	// the fake one stands still after the step, and a wait on it would
	// never end.
	f := &podFollower{src: c, node: "zone-01", clock: clock.RealClock{}, timeout: time.Minute, log: zap.NewNop(), rv: "1",
		enqueue:  func(k reconcilers.Key) { mu.Lock(); queued = append(queued, k.String()); mu.Unlock() },
		relisted: func() { relists.Add(1) }}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); f.run(ctx) }()
	defer func() { cancel(); <-done }()
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return relists.Load() >= 1 && slices.Contains(queued, "pod/default/web")
	}, "after the 410 the follower lists again and queues the node's pod")
}
