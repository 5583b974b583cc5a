//go:build linux

package host

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestProcReadsARecordedHost(t *testing.T) {
	p, err := NewProc("testdata/proc", "testdata/sys", "testdata/etc", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, err := p.Facts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := Facts{
		Hostname: "zone-01", CPUs: 4, MemoryBytes: 16 << 30, KernelVersion: "6.8.0-45-generic",
		OSImage: "Ubuntu 24.04.1 LTS", OperatingSystem: "linux", Architecture: runtime.GOARCH,
		BootID: "5e1f1c5e-0a8b-4b7e-9a59-6f1d2c3b4a59", MachineID: "0f3a2c1d9e8b7a6f5e4d3c2b1a098765",
	}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
	m, err := p.Metrics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUCount != 4 || m.Load1 != 1.5 || m.Load5 != 1 || m.Load15 != 0.25 ||
		m.MemoryTotalBytes != 16<<30 || m.MemoryAvailableBytes != 6<<30 || m.PIDsMax != 4194304 || m.PIDsCurrent != 3 {
		t.Errorf("metrics %+v", m)
	}
	if m.DiskTotalBytes <= 0 || m.DiskAvailableBytes <= 0 || m.DiskAvailableBytes > m.DiskTotalBytes {
		t.Errorf("disk %d of %d available", m.DiskAvailableBytes, m.DiskTotalBytes)
	}
	if m.CPUPercent != nil {
		t.Errorf("CPU use %v%% from the first reading; want none until a second", *m.CPUPercent)
	}
	wantLinks := []domain.NetworkLink{{Name: "eth0", State: "up", Up: true}, {Name: "eth1", State: "down"}}
	if diff := cmp.Diff(wantLinks, m.Links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

// TestProcTakesCPUUseBetweenHeartbeats reads /proc/stat twice, as two
// heartbeats do, with the host 3/4 busy in between.
func TestProcTakesCPUUseBetweenHeartbeats(t *testing.T) {
	proc := filepath.Join(t.TempDir(), "proc")
	if err := os.CopyFS(proc, os.DirFS("testdata/proc")); err != nil {
		t.Fatal(err)
	}
	p, err := NewProc(proc, "testdata/sys", "testdata/etc", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Metrics(t.Context()); err != nil {
		t.Fatal(err)
	}
	// 100 s of CPU time later (USER_HZ 100: 10000 ticks): user +5000,
	// system +2000, softirq +500, idle +2000, iowait +500.
	stat, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		t.Fatal(err)
	}
	later := strings.Replace(string(stat), "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0",
		"cpu  10137153 290696 3086719 46830483 17183 0 25695 0 0 0", 1)
	if err := os.WriteFile(filepath.Join(proc, "stat"), []byte(later), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := p.Metrics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUPercent == nil || math.Abs(*m.CPUPercent-75) > 1e-9 {
		t.Errorf("CPU use %v, want 75%%", m.CPUPercent)
	}
}

// TestSysLinks: loopback never counts; physical links count alone when
// there are any, and a link whose state is unknown is up when it has a
// carrier.
func TestSysLinks(t *testing.T) {
	dir := t.TempDir()
	link := func(name, typ, operstate, carrier string, physical bool) {
		d := filepath.Join(dir, name)
		files := map[string]string{"type": typ, "operstate": operstate}
		if carrier != "" {
			files["carrier"] = carrier
		}
		if physical {
			files["device"] = ""
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, v := range files {
			if err := os.WriteFile(filepath.Join(d, f), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	link("lo", "772", "unknown", "1", false)
	link("tun0", "65534", "unknown", "1", false)
	link("docker0", "1", "down", "", false)
	got, err := sysLinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.NetworkLink{{Name: "docker0", State: "down"}, {Name: "tun0", State: "unknown", Up: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("virtual links only (-want +got):\n%s", diff)
	}

	link("enp3s0", "1", "lowerlayerdown", "0", true)
	got, err = sysLinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want = []domain.NetworkLink{{Name: "enp3s0", State: "lowerlayerdown"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("with a physical link (-want +got):\n%s", diff)
	}

	if _, err := sysLinks(filepath.Join(dir, "missing")); err == nil {
		t.Error("links of a missing directory: no error")
	}
}

// TestLocalReadsThisHost reads the machine the test runs on.
func TestLocalReadsThisHost(t *testing.T) {
	src, err := Local(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Facts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if f.CPUs < 1 || f.MemoryBytes <= 0 || f.KernelVersion == "" || f.BootID == "" {
		t.Errorf("facts of this host %+v", f)
	}
	m, err := src.Metrics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUCount != f.CPUs || m.MemoryAvailableBytes <= 0 || m.MemoryAvailableBytes > m.MemoryTotalBytes || m.PIDsCurrent < 1 || m.PIDsMax < m.PIDsCurrent {
		t.Errorf("metrics of this host %+v", m)
	}
}

func TestProcNamesWhatIsMissing(t *testing.T) {
	p, err := NewProc(t.TempDir(), t.TempDir(), t.TempDir(), "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Metrics(t.Context()); err == nil {
		t.Error("metrics from an empty /proc: no error")
	}
	if _, err := p.Facts(t.Context()); err == nil {
		t.Error("facts from an empty /proc: no error")
	}
}
