package app

import (
	"context"
	"net/http"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"k8s.io/utils/clock"
)

// TestADeletedDemoNodeRegistersAgain: a demo node an operator deletes
// (kubectl delete node) registers again at its next heartbeat, and says
// so once, instead of logging a failed heartbeat every interval until
// herd restarts.
func TestADeletedDemoNodeRegistersAgain(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel, cfg.PollInterval = "127.0.0.1:0", t.TempDir(), "error", 10*time.Millisecond
	var srv *HTTPServer
	a := startApp(t, fx.New(Options(cfg, fx.Populate(&srv)), fx.NopLogger))
	defer stopApp(t, a)

	core, logs := observer.New(zap.InfoLevel)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runDemoAgent(ctx, srv.URL(), 0, 20*time.Millisecond, clock.RealClock{}, zap.New(core))
	}()
	defer func() { cancel(); <-done }()
	name, _ := demoNode(0)
	exists := func() bool {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/api/v1/nodes/"+name, nil)
		if err != nil {
			return false
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	eventually(t, name+" registers", exists)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, srv.URL()+"/api/v1/nodes/"+name, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	eventually(t, name+" says it registers again", func() bool {
		return logs.FilterMessageSnippet("registers again").Len() > 0
	})
	eventually(t, name+" is back", exists)
	if n := logs.FilterMessage("demo heartbeat failed").Len(); n > 0 {
		t.Errorf("%d failed heartbeats logged after the node was deleted, want none", n)
	}
}
