//go:build linux

package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"

	"herd/domain"
)

// Proc reads a Linux host from /proc (through prometheus/procfs), its
// network links from /sys/class/net, and /etc.
type Proc struct {
	fs       procfs.FS
	sysNet   string
	etc      string
	diskPath string
	cpu      cpuSampler
}

var _ Source = (*Proc)(nil)

// NewProc reads the proc filesystem mounted at procRoot, the links under
// sysRoot/class/net, the files of etcDir (os-release, machine-id), and the
// space of the filesystem that holds diskPath.
func NewProc(procRoot, sysRoot, etcDir, diskPath string) (*Proc, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	return &Proc{fs: fs, sysNet: filepath.Join(sysRoot, "class", "net"), etc: etcDir, diskPath: diskPath}, nil
}

// Local is this Linux host.
func Local(cfg Config) (Source, error) { return NewProc("/proc", "/sys", "/etc", cfg.DiskPath) }

// Facts implements Source.
func (p *Proc) Facts(context.Context) (Facts, error) {
	st, err := p.fs.Stat()
	if err != nil {
		return Facts{}, fmt.Errorf("host: /proc/stat: %w", err)
	}
	mem, err := p.fs.Meminfo()
	if err != nil {
		return Facts{}, fmt.Errorf("host: /proc/meminfo: %w", err)
	}
	if mem.MemTotalBytes == nil {
		return Facts{}, errors.New("host: /proc/meminfo has no MemTotal")
	}
	f := Facts{
		CPUs: len(st.CPU), MemoryBytes: int64(*mem.MemTotalBytes),
		OperatingSystem: "linux", Architecture: runtime.GOARCH,
		Hostname:      p.sysctl("kernel.hostname"),
		KernelVersion: p.sysctl("kernel.osrelease"),
		BootID:        p.sysctl("kernel.random.boot_id"),
		OSImage:       osRelease(filepath.Join(p.etc, "os-release")),
	}
	if id, err := os.ReadFile(filepath.Join(p.etc, "machine-id")); err == nil {
		f.MachineID = strings.TrimSpace(string(id))
	}
	return f, nil
}

// sysctl reads one /proc/sys value as text; empty when it cannot.
func (p *Proc) sysctl(name string) string {
	v, err := p.fs.SysctlStrings(name)
	if err != nil {
		return ""
	}
	return strings.Join(v, " ")
}

// Metrics implements Source.
func (p *Proc) Metrics(context.Context) (domain.Metrics, error) {
	st, err := p.fs.Stat()
	if err != nil {
		return domain.Metrics{}, fmt.Errorf("host: /proc/stat: %w", err)
	}
	load, err := p.fs.LoadAvg()
	if err != nil {
		return domain.Metrics{}, fmt.Errorf("host: /proc/loadavg: %w", err)
	}
	mem, err := p.fs.Meminfo()
	if err != nil {
		return domain.Metrics{}, fmt.Errorf("host: /proc/meminfo: %w", err)
	}
	if mem.MemTotalBytes == nil || mem.MemAvailableBytes == nil {
		return domain.Metrics{}, errors.New("host: /proc/meminfo lacks MemTotal or MemAvailable")
	}
	pidMax, err := p.fs.SysctlInts("kernel.pid_max")
	if err != nil {
		return domain.Metrics{}, fmt.Errorf("host: /proc/sys/kernel/pid_max: %w", err)
	}
	if len(pidMax) != 1 {
		return domain.Metrics{}, fmt.Errorf("host: /proc/sys/kernel/pid_max holds %d values, want 1", len(pidMax))
	}
	procs, err := p.fs.AllProcs()
	if err != nil {
		return domain.Metrics{}, fmt.Errorf("host: processes: %w", err)
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(p.diskPath, &fs); err != nil {
		return domain.Metrics{}, fmt.Errorf("host: disk space of %s: %w", p.diskPath, err)
	}
	// A host whose /sys cannot be read reports no links, rather than no
	// heartbeat: herd then derives no NetworkUnavailable.
	links, _ := sysLinks(p.sysNet)
	c := st.CPUTotal
	busy := c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
	return domain.Metrics{
		CPUCount: len(st.CPU), Load1: load.Load1, Load5: load.Load5, Load15: load.Load15,
		MemoryTotalBytes: int64(*mem.MemTotalBytes), MemoryAvailableBytes: int64(*mem.MemAvailableBytes),
		DiskTotalBytes:     int64(fs.Blocks) * int64(fs.Bsize), //nolint:unconvert // Statfs_t.Bsize is int32 on 32-bit Linux
		DiskAvailableBytes: int64(fs.Bavail) * int64(fs.Bsize), //nolint:unconvert // Statfs_t.Bsize is int32 on 32-bit Linux
		PIDsMax:            int64(pidMax[0]), PIDsCurrent: int64(len(procs)),
		CPUPercent: p.cpu.percent(busy, busy+c.Idle+c.Iowait),
		Links:      links,
	}, nil
}

// osRelease is os-release's PRETTY_NAME, or "Linux" without one.
func osRelease(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "Linux"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return "Linux"
}

// LocalServices is this host's service manager: systemd, over D-Bus.
func LocalServices() (ServiceManager, error) { return LocalSystemd(), nil }

// ServiceName is the name under which a watched service is asked for and
// reported: its systemd unit name (UnitName).
func ServiceName(name string) string { return UnitName(name) }
