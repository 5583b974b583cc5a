//go:build linux

package host

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProcReadsARecordedHost(t *testing.T) {
	p, err := NewProc("testdata/proc", "testdata/etc", t.TempDir())
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
	p, err := NewProc(t.TempDir(), t.TempDir(), "/")
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
