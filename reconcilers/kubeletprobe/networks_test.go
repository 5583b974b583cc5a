package kubeletprobe

import (
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// TestHerdProbesOnlyTheNetworksAnAdminAllowed: a node chooses the address
// and port herd probes (its InternalIP and kubelet port, from a Pico
// without credentials); herd sends nothing there unless the address is in
// --kubelet-probe-networks — by default no network at all — and records
// nothing about it. A name instead of an address is never probed.
func TestHerdProbesOnlyTheNetworksAnAdminAllowed(t *testing.T) {
	addr, probes := kubelet(t, http.StatusOK)
	_, port, _ := net.SplitHostPort(addr)
	tests := []struct {
		name     string
		networks []netip.Prefix
		addr     string
		want     int64
	}{
		{"no network allowed, the default", nil, addr, 0},
		{"another network allowed", []netip.Prefix{netip.MustParsePrefix("192.168.4.0/24")}, addr, 0},
		{"a neighbouring loopback address only", []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}, addr, 0},
		{"a name that would resolve to loopback", loopback, net.JoinHostPort("localhost", port), 0},
		{"the node's network allowed", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, addr, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := probes.Load()
			h := newHarness(t, Config{Kinds: []domain.NodeKind{domain.KindRP2040}, Interval: 15 * time.Second, Timeout: time.Second, Networks: tt.networks})
			h.register(t, "pico-01", domain.KindRP2040, tt.addr)
			res, err := h.r.Reconcile(t.Context(), reconcilerstest.NodeKey("pico-01"))
			if err != nil {
				t.Fatal(err)
			}
			if got := probes.Load() - before; got != tt.want {
				t.Errorf("%d probes reached the endpoint, want %d", got, tt.want)
			}
			c, ok := h.condition(t, "pico-01")
			if tt.want == 0 && (ok || res != (reconcilers.Result{})) {
				t.Errorf("a node herd may not probe: condition %+v (%v), result %+v; want none", c, ok, res)
			}
			if tt.want == 1 && c.Reason != domain.ReasonKubeletHealthy {
				t.Errorf("condition %+v, want KubeletHealthy", c)
			}
		})
	}
}
