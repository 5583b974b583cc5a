package illumos

import (
	"fmt"
	"strings"
	"testing"

	"herd/domain"
)

func pod(ns, name, uid string) domain.Pod { return domain.Pod{Namespace: ns, Name: name, UID: uid} }

func TestNamesAreValidForEveryPod(t *testing.T) {
	long := strings.Repeat("a", 63)
	pods := []domain.Pod{
		pod("default", "web", "3f1c"),
		pod(long, strings.Repeat("b.", 120)+"c", "u"),
		pod("a", "b", ""),
		pod("sunw", "global", "x"),
		pod("0", "1", "2"),
	}
	for _, p := range pods {
		if err := ValidZoneName(ZoneName(p)); err != nil {
			t.Errorf("%s: %v", p.Key(), err)
		}
		if len(ZoneName(p)) > 63 {
			t.Errorf("%s: zone name %d characters", p.Key(), len(ZoneName(p)))
		}
		if err := ValidLinkName(VNICName(p)); err != nil {
			t.Errorf("%s: %v", p.Key(), err)
		}
	}
	if err := ValidLinkName(GatewayVNICName("10.88.0.0/16")); err != nil {
		t.Error(err)
	}
	if got := ZoneName(pod("default", "web", "3f1c")); !strings.HasPrefix(got, "herd-default.web-") {
		t.Errorf("zone name %q, want the namespace and name readable in it", got)
	}
}

func TestNamesAreUniquePerPod(t *testing.T) {
	tests := []struct {
		name string
		a, b domain.Pod
	}{
		{"dash moves across the slash", pod("a-b", "c", "u"), pod("a", "b-c", "u")},
		{"dot moves across the slash", pod("a", "b.c", "u"), pod("a.b", "c", "u")},
		{"same name, new UID", pod("default", "web", "u1"), pod("default", "web", "u2")},
		{"long names that share a prefix", pod("ns", strings.Repeat("x", 80)+"1", "u"), pod("ns", strings.Repeat("x", 80)+"2", "u")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ZoneName(tt.a) == ZoneName(tt.b) {
				t.Errorf("both pods get zone %s", ZoneName(tt.a))
			}
			if VNICName(tt.a) == VNICName(tt.b) {
				t.Errorf("both pods get VNIC %s", VNICName(tt.a))
			}
		})
	}
	// Many pods, no collisions, and the same pod always gets the same names.
	zones, vnics := map[string]bool{}, map[string]bool{}
	for i := range 20000 {
		p := pod(fmt.Sprintf("ns%d", i%7), fmt.Sprintf("pod-%d", i), fmt.Sprintf("uid-%d", i))
		if zones[ZoneName(p)] || vnics[VNICName(p)] {
			t.Fatalf("pod %d collides", i)
		}
		zones[ZoneName(p)], vnics[VNICName(p)] = true, true
		if ZoneName(p) != ZoneName(p.Clone()) || VNICName(p) != VNICName(p.Clone()) {
			t.Fatalf("pod %d: names differ between calls", i)
		}
	}
}

func TestValidZoneName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"web", true},
		{"a.b-c_d9", true},
		{"9lives", true},
		{strings.Repeat("z", 64), true},
		{strings.Repeat("z", 65), false},
		{"", false},
		{"-web", false},
		{".web", false},
		{"global", false},
		{"SUNWdefault", false},
		{"has space", false},
		{"slash/y", false},
	}
	for _, tt := range tests {
		if err := ValidZoneName(tt.name); (err == nil) != tt.ok {
			t.Errorf("%q: error %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestValidLinkName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"vnic0", true},
		{"e1000g0", true},
		{"herd_stub10", true},
		{"x" + strings.Repeat("a", 29) + "1", true},
		{"x" + strings.Repeat("a", 30) + "1", false},
		{"vnic01", false},
		{"vnic", false},
		{"0vnic0", false},
		{"_vnic0", false},
		{"vn-ic0", false},
		{"", false},
	}
	for _, tt := range tests {
		if err := ValidLinkName(tt.name); (err == nil) != tt.ok {
			t.Errorf("%q: error %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}
