package main

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"herd/cmd/herd/app"
)

// TestProbeNetworksFlag: --kubelet-probe-networks takes comma-separated
// CIDRs (HERD_KUBELET_PROBE_NETWORKS the same), masked to their network,
// is empty by default, and names what is not a CIDR.
func TestProbeNetworksFlag(t *testing.T) {
	parse := func(args ...string) (app.Config, error) {
		cfg := app.DefaultConfig()
		f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		addSecurityFlags(f, &cfg)
		return cfg, f.Parse(args)
	}
	cfg, err := parse()
	if err != nil || len(cfg.KubeletProbe.Networks) != 0 {
		t.Errorf("default: %v, %v; want no network", cfg.KubeletProbe.Networks, err)
	}
	cfg, err = parse("--kubelet-probe-networks", "192.168.4.7/24, 127.0.0.0/8")
	want := []netip.Prefix{netip.MustParsePrefix("192.168.4.0/24"), netip.MustParsePrefix("127.0.0.0/8")}
	if err != nil || !cmp.Equal(want, cfg.KubeletProbe.Networks, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })) {
		t.Errorf("two networks: %v, %v; want %v", cfg.KubeletProbe.Networks, err, want)
	}
	if _, err := parse("--kubelet-probe-networks", "10.0.0.0/8,pico-lan"); err == nil || !strings.Contains(err.Error(), `"pico-lan": want a CIDR`) {
		t.Errorf("a name for a network: %v", err)
	}
}
