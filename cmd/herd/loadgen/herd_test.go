package loadgen_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.uber.org/fx"
	corev1 "k8s.io/api/core/v1"

	"herd/cmd/herd/app"
)

// startHerd runs a whole herd — every reconciler on — in the test's
// process on a free loopback port, with its log in the test's directory,
// and returns its URL. tune adjusts its configuration first.
func startHerd(t *testing.T, tune func(*app.Config)) string {
	t.Helper()
	cfg := app.DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel = "127.0.0.1:0", t.TempDir(), "error"
	if tune != nil {
		tune(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var srv *app.HTTPServer
	a := fx.New(app.Options(cfg, fx.Populate(&srv)), fx.NopLogger)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Errorf("stop herd: %v", err)
		}
	})
	return srv.URL()
}

// nodes lists herd's nodes by name.
func nodes(t *testing.T, server string) map[string]corev1.Node {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, server+"/api/v1/nodes", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l corev1.NodeList
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		t.Fatal(err)
	}
	out := map[string]corev1.Node{}
	for _, n := range l.Items {
		out[n.Name] = n
	}
	return out
}

func ready(n corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}
