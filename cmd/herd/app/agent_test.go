package app

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
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

// startApp starts an fx app and stops it when the test ends, unless the
// test stopped it first.
func startApp(t *testing.T, a *fx.App) *fx.App {
	t.Helper()
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	return a
}

func stopApp(t *testing.T, a *fx.App) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// startServe runs herd serve on a loopback port and returns its URL.
func startServe(t *testing.T) string {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	var srv *HTTPServer
	startApp(t, fx.New(Options(cfg, fx.Populate(&srv)), fx.NopLogger))
	return srv.URL()
}

// agentApp is `herd agent` for zone-01 against server, with zones on the
// simulated host h and the fake host's metrics.
func agentApp(server string, h *illumostest.Host, extra ...fx.Option) *fx.App {
	return fx.New(AgentOptions(agentConfig(server), append([]fx.Option{
		fx.Decorate(func(illumos.Runner) illumos.Runner { return h }),
		fx.Decorate(func(host.Source) host.Source { return &fakeHost{} }),
	}, extra...)...), fx.NopLogger)
}

// agentConfig is zone-01's agent against server, polling every 20 ms,
// with its metrics on a free loopback port.
func agentConfig(server string) AgentConfig {
	cfg := DefaultAgentConfig()
	cfg.Server, cfg.LogLevel, cfg.PollInterval, cfg.MetricsListen = server, "error", 20*time.Millisecond, "127.0.0.1:0"
	cfg.Node.Name, cfg.Node.Runtime, cfg.Node.HeartbeatInterval = "zone-01", RuntimeIllumos, time.Second
	return cfg
}

func post(t *testing.T, url, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		t.Fatalf("POST %s: %s %s", url, resp.Status, b.String())
	}
}

func TestAnAgentRunsZonesForHerdOverItsAPI(t *testing.T) {
	url := startServe(t)
	h := illumostest.NewHost()
	agent := startApp(t, agentApp(url, h))
	c, err := herdclient.New(herdclient.Config{Server: url})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		n, err := c.Node(ctx, "zone-01")
		ready, _ := n.Condition(domain.ConditionReady)
		return err == nil && n.RunsOwnPods() && n.Kind == domain.KindIllumos && ready.Status == domain.ConditionTrue
	}, "zone-01 registered as an illumos node of its own agent, and Ready")

	post(t, url+"/api/v1/namespaces/default/pods", `{"metadata":{"name":"web","annotations":{"herd.dev/zone-brand":"lx","herd.dev/zone-image":"ubuntu.tar.xz"}},`+
		`"spec":{"containers":[{"name":"app","image":"busybox","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}`)
	var zone string
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		p, err := c.Pod(ctx, "default", "web")
		if err != nil || p.Status.Phase != domain.PodRunning {
			return false
		}
		zone = illumos.ZoneName(p)
		state, _ := h.ZoneState(zone)
		return p.Status.PodIP == "10.88.0.2" && state == "running"
	}, "the pod runs as a zone with its address; the host has zones %v", h.ZoneNames())

	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, url+"/api/v1/namespaces/default/pods/web", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		_, err := c.Pod(ctx, "default", "web")
		return errors.Is(err, domain.ErrNotFound) && len(h.ZoneNames()) == 0
	}, "the pod is gone and so is its zone; zones %v", h.ZoneNames())
	if v := h.VNICs(); len(v) != 1 || v[0] != illumos.GatewayVNICName("10.88.0.0/16") {
		t.Errorf("VNICs left %v, want only the pool's gateway", v)
	}

	stopApp(t, agent)
	n, err := c.Node(ctx, "zone-01")
	if err != nil {
		t.Fatal(err)
	}
	if ready, _ := n.Condition(domain.ConditionReady); ready.Status != domain.ConditionFalse || ready.Reason != domain.ReasonAgentStopped {
		t.Errorf("after a clean stop: Ready %+v", ready)
	}
	startApp(t, agentApp(url, h))
	n, err = c.Node(ctx, "zone-01")
	if err != nil {
		t.Fatal(err)
	}
	if n.RestartCount != 1 || n.LastRestartReason != domain.RestartCleanStart {
		t.Errorf("after starting again: %d restarts, the last a %q; want 1, a clean start", n.RestartCount, n.LastRestartReason)
	}
}

func TestServeRunsItsOwnHostAsALocalNode(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	// Other nodes' pods are their agents' business; the local node's are
	// herd's own.
	cfg.NodeRuntime = NodeRuntimeNone
	cfg.LocalNode.Name = "solo"
	var srv *HTTPServer
	a := startApp(t, fx.New(Options(cfg, fx.Populate(&srv),
		fx.Decorate(func(host.Source) host.Source { return &fakeHost{} })), fx.NopLogger))
	c, err := herdclient.New(herdclient.Config{Server: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	post(t, srv.URL()+"/api/v1/namespaces/default/pods", `{"metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"busybox"}]}}`)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		p, err := c.Pod(ctx, "default", "web")
		return err == nil && p.Spec.NodeName == "solo" && p.Status.Phase == domain.PodRunning && p.Status.PodIP == "10.88.0.2"
	}, "the pod runs on the local node")
	n, err := c.Node(ctx, "solo")
	if err != nil {
		t.Fatal(err)
	}
	if n.Kind != domain.KindIllumos || n.RunsOwnPods() || n.Allocatable["pods"] != 110 {
		t.Errorf("the local node: %s, runs its own pods %v, allocatable %v", n.Kind, n.RunsOwnPods(), n.Allocatable)
	}
	stopApp(t, a)
}

func TestConfigurationNamesWhatIsWrong(t *testing.T) {
	agent := DefaultAgentConfig()
	agent.Server, agent.PollInterval, agent.MetricsListen = "herd:8080", 0, "9464"
	agent.Node.Runtime, agent.Node.ReserveCPU, agent.Node.HeartbeatInterval, agent.Node.Address = "docker", -1, 0, "zone-01"
	agent.WatchServices = []string{"svc:/network/ssh:default", "", "svc:/network/ssh:default"}
	serve := DefaultConfig()
	serve.LocalNode.Name = "Solo_1"
	serve.LocalNode.Runtime = RuntimeIllumos
	serve.LocalNode.Illumos.NetworkMode = "bridge"
	serve.LocalNode.Illumos.Retry.Attempts = 0
	serve.Thresholds.CPUPercent = 101
	serve.Thresholds.TransitionPeriod = -time.Second
	for _, tt := range []struct {
		name string
		err  error
		want []string
	}{
		{"agent", agent.Validate(), []string{"--node-name is required", `--server "herd:8080"`, "--poll-interval 0s", `--runtime "docker"`,
			"--reserve-cpu -1m", "--heartbeat-interval 0s", `--node-ip "zone-01"`, `--metrics-listen "9464"`,
			"--watch-service: a service name must not be empty", `--watch-service "svc:/network/ssh:default": the same service as "svc:/network/ssh:default", given already`}},
		{"serve", serve.Validate(), []string{`--local-node "Solo_1"`, `--network-mode "bridge"`, "--command-attempts 0", "--cpu-pressure-percent 101: want 1 to 100",
			"--pressure-transition-period -1s: want 0 or more"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(tt.err.Error(), w) {
					t.Errorf("%q does not name %s", tt.err, w)
				}
			}
		})
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("serve without a local node: %v", err)
	}
}

func TestAnAgentWithItsNodesTokenRunsItsPods(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("admin-token,alice,1,herd:admins\nzone-token,system:node:zone-01,2,system:nodes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	cfg.Security.TokenAuthFile = tokens
	var srv *HTTPServer
	startApp(t, fx.New(Options(cfg, fx.Populate(&srv)), fx.NopLogger))

	agent := DefaultAgentConfig()
	agent.Server, agent.Token, agent.LogLevel, agent.PollInterval, agent.MetricsListen = srv.URL(), "zone-token", "error", 20*time.Millisecond, ""
	agent.Node.Name = "zone-01"
	startApp(t, fx.New(AgentOptions(agent, fx.Decorate(func(host.Source) host.Source { return &fakeHost{} })), fx.NopLogger))

	admin, err := herdclient.New(herdclient.Config{Server: srv.URL(), Token: "admin-token"})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/api/v1/namespaces/default/pods",
		strings.NewReader(`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"busybox"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer admin-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %s", resp.Status)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		p, err := admin.Pod(t.Context(), "default", "web")
		return err == nil && p.Spec.NodeName == "zone-01" && p.Status.Phase == domain.PodRunning
	}, "the agent runs the pod with its node's token")
	// The node's token reads its own pods only.
	own, err := herdclient.New(herdclient.Config{Server: srv.URL(), Token: "zone-token"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := own.List(t.Context(), "zone-02"); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("another node's pods with zone-01's token: %v", err)
	}
	// It watches them too, as the agent does, and no other node's.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var seen []string
	_, err = own.WatchPods(ctx, "zone-01", "", time.Minute, func(ev herdclient.PodEvent) { seen = append(seen, ev.Pod.Name); cancel() })
	if len(seen) != 1 || seen[0] != "web" {
		t.Errorf("watching zone-01's pods with its token: saw %v (%v), want web", seen, err)
	}
	if _, err := own.WatchPods(t.Context(), "zone-02", "", time.Minute, func(herdclient.PodEvent) {}); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("watching another node's pods with zone-01's token: %v", err)
	}
}
