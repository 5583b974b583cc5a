//go:build illumos

package host

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"herd/adapters/illumos"
	"herd/domain"
)

// Kstat reads an illumos host through kstat, uname and the storage pool.
type Kstat struct {
	k   *illumos.Kstat
	run illumos.Runner
	cpu cpuSampler
}

var _ Source = (*Kstat)(nil)

// Local is this illumos host.
func Local(cfg Config) (Source, error) {
	run := illumos.ExecRunner{}
	return &Kstat{k: illumos.NewKstat(run, cfg.StoragePool, int64(os.Getpagesize())), run: run}, nil
}

// Facts implements Source.
func (h *Kstat) Facts(ctx context.Context) (Facts, error) {
	cpus, mem, boot, err := h.k.Facts(ctx)
	if err != nil {
		return Facts{}, err
	}
	f := Facts{CPUs: cpus, MemoryBytes: mem, BootID: fmt.Sprint(boot), OperatingSystem: "illumos", Architecture: runtime.GOARCH}
	f.Hostname, _ = os.Hostname()
	if out, err := h.run.Run(ctx, illumos.Command{Name: "uname", Args: []string{"-v"}}); err == nil {
		f.KernelVersion = strings.TrimSpace(string(out))
	}
	if data, err := os.ReadFile("/etc/release"); err == nil {
		f.OSImage = strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0])
	}
	return f, nil
}

// Metrics implements Source. CPU use comes from the cpu kstats' ticks
// between two heartbeats, the links from dladm; a host where either cannot
// be read reports none of it rather than no heartbeat.
func (h *Kstat) Metrics(ctx context.Context) (domain.Metrics, error) {
	m, err := h.k.Metrics(ctx)
	if err != nil {
		return m, err
	}
	if busy, all, err := kstatCPUTicks(ctx, h.run); err == nil {
		m.CPUPercent = h.cpu.percent(busy, all)
	}
	m.Links, _ = dladmLinks(ctx, h.run)
	return m, nil
}

// LocalServices is this host's service manager: SMF, through svcs.
func LocalServices() (ServiceManager, error) { return NewSMF(illumos.ExecRunner{}), nil }

// ServiceName is the name under which a watched service is asked for and
// reported: as given, since svcs takes any FMRI or abbreviation of one.
func ServiceName(name string) string { return name }
