package illumos

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"herd/domain"
)

// The kernel statistics herd reads for a host's facts and metrics.
const (
	kstatNCPUs     = "unix:0:system_misc:ncpus"
	kstatAvenrun1  = "unix:0:system_misc:avenrun_1min"
	kstatAvenrun5  = "unix:0:system_misc:avenrun_5min"
	kstatAvenrun15 = "unix:0:system_misc:avenrun_15min"
	kstatNProc     = "unix:0:system_misc:nproc"
	kstatBootTime  = "unix:0:system_misc:boot_time"
	kstatPhysmem   = "unix:0:system_pages:physmem"
	kstatFreemem   = "unix:0:system_pages:freemem"
	kstatMaxProc   = "unix:0:var:v_proc"
	kstatARCSize   = "zfs:0:arcstats:size"
	kstatARCMin    = "zfs:0:arcstats:c_min"
)

// fshift is the fixed-point shift of the kernel's load averages
// (FSHIFT in sys/param.h): avenrun values are the load times 256.
const fshift = 8

// ParseKstat reads `kstat -p` output: "module:instance:name:statistic",
// a tab, the value; one statistic a line.
func ParseKstat(out []byte) (map[string]string, error) {
	stats := map[string]string{}
	for i, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "\t")
		if !ok || strings.Count(k, ":") != 3 {
			return nil, fmt.Errorf("kstat line %d %q: want module:instance:name:statistic, a tab, the value", i+1, line)
		}
		stats[k] = strings.TrimSpace(v)
	}
	return stats, nil
}

// Kstat reads host statistics through the kstat command.
type Kstat struct {
	run Runner
	// pool is the ZFS pool whose space is the host's disk.
	pool string
	// pageSize is the size of a memory page in bytes.
	pageSize int64
}

// NewKstat returns a reader of the host's statistics: memory in pages of
// pageSize bytes, disk as the space of pool.
func NewKstat(run Runner, pool string, pageSize int64) *Kstat {
	return &Kstat{run: run, pool: pool, pageSize: pageSize}
}

// read runs `kstat -p` for the statistics and returns them as integers;
// a statistic missing from the answer is an error naming it.
func (k *Kstat) read(ctx context.Context, names ...string) (map[string]int64, error) {
	out, err := k.run.Run(ctx, Command{Name: "kstat", Args: append([]string{"-p"}, names...)})
	if err != nil {
		return nil, fmt.Errorf("kstat: %w", err)
	}
	raw, err := ParseKstat(out)
	if err != nil {
		return nil, err
	}
	vals := make(map[string]int64, len(names))
	for _, n := range names {
		s, ok := raw[n]
		if !ok {
			return nil, fmt.Errorf("kstat: no %s in its answer", n)
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("kstat: %s = %q: %w", n, s, err)
		}
		vals[n] = v
	}
	return vals, nil
}

// Facts reads the CPUs and memory the host registers with, and its boot
// time, which tells one boot from the next.
func (k *Kstat) Facts(ctx context.Context) (cpus int, memoryBytes int64, bootTime int64, err error) {
	v, err := k.read(ctx, kstatNCPUs, kstatPhysmem, kstatBootTime)
	if err != nil {
		return 0, 0, 0, err
	}
	return int(v[kstatNCPUs]), v[kstatPhysmem] * k.pageSize, v[kstatBootTime], nil
}

// Metrics reads load, memory, processes and the pool's space. Available
// memory counts what the ZFS ARC would give back above its minimum, as
// illumos itself does under pressure: without it a busy file server
// always looks out of memory.
func (k *Kstat) Metrics(ctx context.Context) (domain.Metrics, error) {
	v, err := k.read(ctx, kstatNCPUs, kstatAvenrun1, kstatAvenrun5, kstatAvenrun15, kstatPhysmem, kstatFreemem,
		kstatNProc, kstatMaxProc, kstatARCSize, kstatARCMin)
	if err != nil {
		return domain.Metrics{}, err
	}
	m := domain.Metrics{
		CPUCount:             int(v[kstatNCPUs]),
		Load1:                float64(v[kstatAvenrun1]) / (1 << fshift),
		Load5:                float64(v[kstatAvenrun5]) / (1 << fshift),
		Load15:               float64(v[kstatAvenrun15]) / (1 << fshift),
		MemoryTotalBytes:     v[kstatPhysmem] * k.pageSize,
		MemoryAvailableBytes: v[kstatFreemem]*k.pageSize + max(v[kstatARCSize]-v[kstatARCMin], 0),
		PIDsMax:              v[kstatMaxProc],
		PIDsCurrent:          v[kstatNProc],
	}
	m.MemoryAvailableBytes = min(m.MemoryAvailableBytes, m.MemoryTotalBytes)
	out, err := k.run.Run(ctx, Command{Name: "zfs", Args: []string{"list", "-Hp", "-o", "used,available", k.pool}})
	if err != nil {
		return domain.Metrics{}, fmt.Errorf("disk space of pool %s: %w", k.pool, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return domain.Metrics{}, fmt.Errorf("disk space of pool %s: zfs answered %q, want used and available", k.pool, out)
	}
	used, err1 := strconv.ParseInt(f[0], 10, 64)
	avail, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return domain.Metrics{}, fmt.Errorf("disk space of pool %s: zfs answered %q, want two byte counts", k.pool, out)
	}
	m.DiskTotalBytes, m.DiskAvailableBytes = used+avail, avail
	return m, nil
}
