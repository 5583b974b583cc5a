package loadgen_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"go.uber.org/fx"

	"herd/cmd/herd/app"
	"herd/cmd/herd/loadgen"
)

// TestPicoStyleRegistersRealPicosThroughTheDeviceListener: the pico
// style's boards send the firmware's Node — kind rp2040, a Pico's
// capacity — so herd's device listener, which registers nothing else,
// takes every one. Its boards all speak from one address, so the run
// needs a --device-rate and --device-burst above a real board's.
func TestPicoStyleRegistersRealPicosThroughTheDeviceListener(t *testing.T) {
	cfg := app.DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel = "127.0.0.1:0", t.TempDir(), "error"
	s := &cfg.Security
	s.DeviceListen, s.DeviceAllow, s.DeviceSourceNetworks = "127.0.0.1:0", []string{"pico-*"}, []string{"127.0.0.0/8"}
	s.DeviceRate, s.DeviceBurst = 100000, 100000
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var (
		srv *app.HTTPServer
		dev *app.DeviceServer
	)
	a := fx.New(app.Options(cfg, fx.Populate(&srv, &dev)), fx.NopLogger)
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

	run := tiny(dev.URL(), loadgen.StylePico)
	r, err := loadgen.Run(t.Context(), run, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]loadgen.Phase{"register": r.Register, "warm-up": r.Warmup, "heartbeats": r.Heartbeats} {
		if p.Requests == 0 && name != "heartbeats" || p.Acknowledged != p.Requests || len(p.Errors) > 0 {
			t.Errorf("%s: %d of %d acknowledged, errors %v (%s)", name, p.Acknowledged, p.Requests, p.Errors, p.FirstError)
		}
	}
	got := nodes(t, srv.URL())
	for i := range run.Nodes {
		name := fmt.Sprintf("pico-loadgen-%05d", i)
		n, ok := got[name]
		pods := n.Status.Allocatable["pods"]
		if !ok || n.Labels["herd.dev/kind"] != "rp2040" || !pods.IsZero() {
			t.Errorf("%s: registered %v, kind %q, allocatable %v; want an rp2040 with no room for pods", name, ok, n.Labels["herd.dev/kind"], n.Status.Allocatable)
		}
	}
}
