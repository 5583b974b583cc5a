package domain

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sampleIPAMEvents is one event of every IPAM event type, pool and pod.
func sampleIPAMEvents() []Event {
	return []Event{
		IPAllocated{Pool: "10.88.0.0/16", Address: "10.88.0.2", PodUID: "uid-1", Namespace: "default", Name: "web", At: at(1)},
		IPReleased{Pool: "10.88.0.0/16", Address: "10.88.0.2", PodUID: "uid-1", Namespace: "default", Name: "web", Reason: "PodFinalized", At: at(2)},
		PodIPAssigned{Network: PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.2", PrefixLength: 16, Gateway: "10.88.0.1"}, At: at(3)},
		PodIPUnavailable{Message: "IP pool 10.88.0.0/30 exhausted: 1 of 1 addresses in use", At: at(4)},
	}
}

func TestParseIPPool(t *testing.T) {
	tests := []struct {
		cidr     string
		gateway  string
		first    string
		capacity int
		wantErr  string
	}{
		{cidr: "10.88.0.0/16", gateway: "10.88.0.1", first: "10.88.0.2", capacity: 65533},
		{cidr: "10.88.0.0/30", gateway: "10.88.0.1", first: "10.88.0.2", capacity: 1},
		{cidr: "192.168.7.0/24", gateway: "192.168.7.1", first: "192.168.7.2", capacity: 253},
		{cidr: "10.88.0.0/31", wantErr: "too small"},
		{cidr: "10.88.0.0/32", wantErr: "too small"},
		{cidr: "10.88.0.1/16", wantErr: "host bits set; the network is 10.88.0.0/16"},
		{cidr: "fd00::/64", wantErr: "only IPv4"},
		{cidr: "10.88.0.0", wantErr: "want a CIDR"},
		{cidr: "", wantErr: "want a CIDR"},
	}
	for _, tt := range tests {
		t.Run(tt.cidr, func(t *testing.T) {
			n, err := ParseIPPool(tt.cidr)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrInvalid) || !contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want ErrInvalid saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{n.Gateway.String(), n.Address(0).String(), fmt.Sprint(n.Capacity)}
			if diff := cmp.Diff([]string{tt.gateway, tt.first, fmt.Sprint(tt.capacity)}, got); diff != "" {
				t.Errorf("gateway, first, capacity (-want +got):\n%s", diff)
			}
			last := n.Address(n.Capacity - 1)
			if off, ok := n.Offset(last); !ok || off != n.Capacity-1 {
				t.Errorf("last address %s: offset %d %v", last, off, ok)
			}
			for _, never := range []string{n.Prefix.Addr().String(), n.Gateway.String(), last.Next().String()} {
				if _, ok := n.Offset(mustAddr(t, never)); ok {
					t.Errorf("%s is handed out, want never (network, gateway or broadcast)", never)
				}
			}
		})
	}
}

// poolAfter folds commands into a pool, failing on any error.
func poolAfter(t *testing.T, cidr string, cmds ...IPPoolCommand) IPPool {
	t.Helper()
	p := IPPool{CIDR: cidr}
	for i, c := range cmds {
		evs, err := DecideIPPool(p, c, at(i))
		if err != nil {
			t.Fatalf("command %d %+v: %v", i, c, err)
		}
		for _, e := range evs {
			p = evolveIPPool(p, e)
		}
	}
	return p
}

func alloc(uid string) AllocateIP {
	return AllocateIP{PodUID: uid, Namespace: "default", Name: "pod-" + uid}
}

func addresses(p IPPool) map[string]string {
	out := map[string]string{}
	for addr, a := range p.Allocations {
		out[a.PodUID] = addr
	}
	return out
}

func TestAllocateIPHandsOutLowestFreeOncePerPod(t *testing.T) {
	tests := []struct {
		name string
		cmds []IPPoolCommand
		want map[string]string
	}{
		{"first is network plus two", []IPPoolCommand{alloc("a")}, map[string]string{"a": "10.88.0.2"}},
		{"in order", []IPPoolCommand{alloc("a"), alloc("b"), alloc("c")},
			map[string]string{"a": "10.88.0.2", "b": "10.88.0.3", "c": "10.88.0.4"}},
		{"same pod twice gets one address", []IPPoolCommand{alloc("a"), alloc("a"), alloc("b")},
			map[string]string{"a": "10.88.0.2", "b": "10.88.0.3"}},
		{"released address is reused first", []IPPoolCommand{alloc("a"), alloc("b"), alloc("c"), ReleaseIP{PodUID: "b"}, alloc("d")},
			map[string]string{"a": "10.88.0.2", "d": "10.88.0.3", "c": "10.88.0.4"}},
		{"release of a pod without address", []IPPoolCommand{alloc("a"), ReleaseIP{PodUID: "zz"}},
			map[string]string{"a": "10.88.0.2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, addresses(poolAfter(t, "10.88.0.0/24", tt.cmds...))); diff != "" {
				t.Errorf("addresses by pod (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAllocateIPSecondTimeAppendsNothing(t *testing.T) {
	p := poolAfter(t, "10.88.0.0/24", alloc("a"))
	evs, err := DecideIPPool(p, alloc("a"), at(9))
	if err != nil || len(evs) != 0 {
		t.Errorf("events %v error %v, want none", evs, err)
	}
	evs, err = DecideIPPool(p, ReleaseIP{PodUID: "nobody"}, at(9))
	if err != nil || len(evs) != 0 {
		t.Errorf("release of nothing: events %v error %v, want none", evs, err)
	}
}

func TestAllocateIPExhaustedPoolSaysHowFull(t *testing.T) {
	p := poolAfter(t, "10.88.0.0/30", alloc("a"))
	_, err := DecideIPPool(p, alloc("b"), at(5))
	var ex *PoolExhaustedError
	if !errors.As(err, &ex) || !errors.Is(err, ErrPoolExhausted) {
		t.Fatalf("error %v, want a PoolExhaustedError", err)
	}
	if want := "IP pool 10.88.0.0/30 exhausted: 1 of 1 addresses in use"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
	p = poolAfter(t, "10.88.0.0/30", alloc("a"), ReleaseIP{PodUID: "a", Reason: "PodFinalized"}, alloc("b"))
	if diff := cmp.Diff(map[string]string{"b": "10.88.0.2"}, addresses(p)); diff != "" {
		t.Errorf("after release (-want +got):\n%s", diff)
	}
}

func TestAllocateIPRejectsBadInput(t *testing.T) {
	tests := []struct {
		name  string
		pool  string
		cmd   IPPoolCommand
		field string
	}{
		{"no uid", "10.88.0.0/24", AllocateIP{Namespace: "default", Name: "a"}, "podUID"},
		{"bad name", "10.88.0.0/24", AllocateIP{PodUID: "u", Namespace: "default", Name: "A_B"}, "metadata.name"},
		{"release without uid", "10.88.0.0/24", ReleaseIP{}, "podUID"},
		{"bad pool", "10.88.0.0/31", alloc("a"), ""},
		{"nil command", "10.88.0.0/24", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideIPPool(IPPool{CIDR: tt.pool}, tt.cmd, at(1))
			if !errors.Is(err, ErrInvalid) || len(evs) != 0 {
				t.Fatalf("events %v error %v, want ErrInvalid and nothing", evs, err)
			}
			var inv *InvalidError
			if tt.field != "" && (!errors.As(err, &inv) || inv.Fields[0].Field != tt.field) {
				t.Errorf("error %v, want it to name %s", err, tt.field)
			}
		})
	}
}

func TestEvolveIPPoolDoesNotMutate(t *testing.T) {
	p := poolAfter(t, "10.88.0.0/24", alloc("a"))
	before := addresses(p)
	_ = evolveIPPool(p, IPAllocated{Pool: p.CIDR, Address: "10.88.0.9", PodUID: "x", Namespace: "default", Name: "x"})
	_ = evolveIPPool(p, IPReleased{Pool: p.CIDR, Address: "10.88.0.2", PodUID: "a"})
	if diff := cmp.Diff(before, addresses(p)); diff != "" {
		t.Errorf("pool changed under Evolve (-before +after):\n%s", diff)
	}
	if p.Version != 1 {
		t.Errorf("version %d, want 1", p.Version)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFreeAddressesFollowTheAllocations folds random allocations (the
// lowest free address, and any free address, as a log written by hand may
// hold) and releases, and checks after each that the free addresses the
// pool keeps say what its allocations say: the lowest free address, how
// many are in use, and the same summary IPPoolOf derives from the
// allocations alone.
func TestFreeAddressesFollowTheAllocations(t *testing.T) {
	const cidr = "10.88.0.0/27"
	n, _ := ParseIPPool(cidr)
	rng := rand.New(rand.NewPCG(1, 2))
	p := IPPool{CIDR: cidr}
	exhausted := 0
	for step := range 5000 {
		held := slices.Sorted(maps.Keys(p.Allocations))
		var free []int
		for i := range n.Capacity {
			if _, ok := p.Allocations[n.Address(i).String()]; !ok {
				free = append(free, i)
			}
		}
		switch r := rng.IntN(10); {
		case r < 5 && len(free) == 0:
			if _, err := DecideIPPool(p, alloc("late"), at(step)); !errors.Is(err, ErrPoolExhausted) {
				t.Fatalf("step %d: full pool: %v, want exhausted", step, err)
			}
			exhausted++
		case r < 5:
			uid := fmt.Sprintf("u%d", step)
			evs, err := DecideIPPool(p, alloc(uid), at(step))
			if err != nil || len(evs) != 1 || evs[0].(IPAllocated).Address != n.Address(free[0]).String() {
				t.Fatalf("step %d: allocate: %v %v, want the lowest free %s", step, evs, err, n.Address(free[0]))
			}
			p = evolveIPPool(p, evs[0])
		case r < 6 && len(free) > 0:
			addr := n.Address(free[rng.IntN(len(free))]).String()
			p = evolveIPPool(p, IPAllocated{Pool: cidr, Address: addr, PodUID: "x" + addr, Namespace: "default", Name: "x", At: at(step)})
		case len(held) > 0:
			a := p.Allocations[held[rng.IntN(len(held))]]
			evs, err := DecideIPPool(p, ReleaseIP{PodUID: a.PodUID, Reason: "PodFinalized"}, at(step))
			if err != nil || len(evs) != 1 {
				t.Fatalf("step %d: release %s: %v %v", step, a.PodUID, evs, err)
			}
			p = evolveIPPool(p, evs[0])
		}
		if p.InUse != len(p.Allocations) {
			t.Fatalf("step %d: in use %d, want %d", step, p.InUse, len(p.Allocations))
		}
		derived := IPPoolOf(cidr, p.Version, slices.Collect(maps.Values(p.Allocations)))
		if diff := cmp.Diff(derived, IPPool{CIDR: cidr, Version: p.Version, InUse: p.InUse, Next: p.Next, Holes: p.Holes}, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d: free addresses differ from those derived (-derived +folded):\n%s", step, diff)
		}
	}
	if exhausted == 0 {
		t.Error("the pool never filled up: the walk tried no allocation on a full pool")
	}
}

// evolveIPPool folds one event into the pool. Like EvolveNode it never
// mutates p and counts every event in Version.
func evolveIPPool(p IPPool, e Event) IPPool {
	p.Allocations = maps.Clone(p.Allocations)
	p.Holes = slices.Clone(p.Holes)
	FoldIPPool(&p, e)
	return p
}
