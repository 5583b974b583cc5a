package app

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/fx"

	"herd/adapters/herdclient"
	"herd/adapters/illumos/illumostest"
	"herd/domain"
	"herd/events/eventstest"
)

// scrape GETs url on loopback and returns the status and body.
func scrape(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestAnAgentServesItsMetricsAndHealthOnLoopback(t *testing.T) {
	url := startServe(t)
	h := illumostest.NewHost()
	var ms *MetricsServer
	startApp(t, agentApp(url, h, fx.Populate(&ms)))
	if !strings.HasPrefix(ms.URL(), "http://127.0.0.1:") {
		t.Fatalf("metrics served at %q, want loopback", ms.URL())
	}
	if code, body := scrape(t, ms.URL()+"/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	c, err := herdclient.New(herdclient.Config{Server: url})
	if err != nil {
		t.Fatal(err)
	}
	post(t, url+"/api/v1/namespaces/default/pods", `{"metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"busybox"}]}}`)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		p, err := c.Pod(t.Context(), "default", "web")
		return err == nil && p.Status.Phase == domain.PodRunning
	}, "the pod runs")
	want := []string{
		`herd_agent_heartbeats_total{result="sent"}`,
		`herd_agent_heartbeats_total{result="failed"} 0`,
		`herd_agent_pods_running`,
		`herd_agent_runtime_command_duration_seconds_count{command="zoneadm"}`,
		`herd_agent_runtime_command_duration_seconds_count{command="zfs"}`,
		`herd_agent_runtime_command_duration_seconds_count{command="dladm"}`,
		`herd_reconciler_reconciles_total`,
		`go_goroutines`,
	}
	code, body := scrape(t, ms.URL()+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("/metrics lacks %s", w)
		}
	}
	if strings.Contains(body, "herd_log_events") {
		t.Error("/metrics carries herd serve's metrics; the agent's registry is its own")
	}
}
