package kubeletprobe

import (
	"testing"
	"time"

	"herd/domain"
	"herd/reconcilers"
)

// TestARegistrationIsReadForWhatDecidesAProbe: the registration a
// NodeRegistered or NodeRestarted record carries reads as the whole
// event decodes it for the node's name, kind and kubelet port, and a
// kubelet that registers with its labels, addresses and capacity costs
// the mapping a few allocations, not a decode of all of it (every kubelet
// of a registering fleet passes here).
func TestARegistrationIsReadForWhatDecidesAProbe(t *testing.T) {
	h := newHarness(t, Config{Kinds: []domain.NodeKind{domain.KindRP2040}, Interval: 15 * time.Second, Timeout: time.Second, Networks: loopback})
	h.register(t, "pico-01", domain.KindRP2040, "127.0.0.1:10250")
	reg := domain.Registration{Name: "web-01", Kind: domain.KindLinux, KubeletPort: 10250,
		Labels:      map[string]string{"kubernetes.io/hostname": "web-01", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "topology.kubernetes.io/zone": "a"},
		Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
		Addresses:   []domain.Address{{Type: "Hostname", Address: "web-01"}, {Type: "InternalIP", Address: "127.0.0.2"}},
		Capacity:    domain.ResourceList{"cpu": 4000, "memory": 16 << 30, "pods": 110}, Allocatable: domain.ResourceList{"cpu": 4000, "memory": 16 << 30, "pods": 110},
		Info: domain.NodeInfo{OSImage: "Debian", KernelVersion: "6.1", BootID: "b1"}}
	if _, err := h.w.NodeCommands().Execute(t.Context(), domain.Key{Name: reg.Name}, domain.RegisterNode{Registration: reg}); err != nil {
		t.Fatal(err)
	}
	reg.Info.BootID = "b2"
	if _, err := h.w.NodeCommands().Execute(t.Context(), domain.Key{Name: reg.Name}, domain.RegisterNode{Registration: reg}); err != nil {
		t.Fatal(err)
	}
	recs, err := h.log.ReadAfter(t.Context(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	ws := h.r.Watches()
	seen := map[string]int{}
	for _, rec := range recs {
		var whole domain.Registration
		switch rec.Type {
		case domain.NodeRegistered{}.EventType():
			ev, err := reconcilers.Decode[domain.NodeRegistered](rec)
			if err != nil {
				t.Fatal(err)
			}
			whole = ev.Registration
		case domain.NodeRestarted{}.EventType():
			ev, err := reconcilers.Decode[domain.NodeRestarted](rec)
			if err != nil {
				t.Fatal(err)
			}
			whole = ev.Registration
		default:
			if _, ok := registration(rec); ok {
				t.Errorf("a %s reads as a registration", rec.Type)
			}
			continue
		}
		seen[rec.Type]++
		got, ok := registration(rec)
		if !ok || got.Name != whole.Name || got.Kind != whole.Kind || got.KubeletPort != whole.KubeletPort {
			t.Errorf("%s of %s reads as %+v (%v), want name %s, kind %s, port %d", rec.Type, whole.Name, got, ok, whole.Name, whole.Kind, whole.KubeletPort)
		}
		if whole.Name != "web-01" {
			continue
		}
		if allocs := testing.AllocsPerRun(100, func() { ws.KeysFor(rec) }); allocs > 6 {
			t.Errorf("mapping %s of a kubelet not probed: %.0f allocations, want at most 6", rec.Type, allocs)
		}
	}
	if seen[domain.NodeRegistered{}.EventType()] != 2 || seen[domain.NodeRestarted{}.EventType()] != 1 {
		t.Errorf("registrations read: %v, want 2 NodeRegistered and 1 NodeRestarted", seen)
	}
}
