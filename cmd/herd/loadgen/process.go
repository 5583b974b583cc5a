package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Process is herd's process over the measured window.
type Process struct {
	// PID is the process measured.
	PID int `json:"pid"`
	// CPUSeconds is its user and system time in the window; CPUCores is
	// that as a fraction of one core (0.5 is half a core).
	CPUSeconds float64 `json:"cpuSeconds"`
	CPUCores   float64 `json:"cpuCores"`
	// RSSFinalBytes is its resident memory at the window's end,
	// RSSPeakBytes the most sampled in the window (every 100 ms), and
	// HWMBytes the kernel's high-water mark over the process's life
	// (VmHWM).
	RSSFinalBytes int64 `json:"rssFinalBytes"`
	RSSPeakBytes  int64 `json:"rssPeakBytes"`
	HWMBytes      int64 `json:"hwmBytes"`
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat:
// 100 on every Linux architecture herd runs on (sysconf(_SC_CLK_TCK)
// would need cgo to ask).
const clockTicks = 100

// rssSampleEvery is how often the resident set is read for its peak.
const rssSampleEvery = 100 * time.Millisecond

// cpuTime is utime+stime of pid.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("--server-pid %d: %w", pid, err)
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted after its closing parenthesis, where field 3 (state) is
	// the first.
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("--server-pid %d: /proc/%d/stat is not what Linux writes", pid, pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("--server-pid %d: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// memory is VmRSS and VmHWM of pid, in bytes.
func memory(pid int) (rss, hwm int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("--server-pid %d: %w", pid, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("--server-pid %d: %s %q", pid, k, v)
		}
		if k == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	return rss, hwm, nil
}

// processWatch measures pid from start until stop.
type processWatch struct {
	pid      int
	cpu0     time.Duration
	start    time.Time
	cancel   context.CancelFunc
	done     sync.WaitGroup
	peak     int64
	sampling error
}

// watchProcess starts measuring pid; nil when pid is 0.
func watchProcess(pid int) (*processWatch, error) {
	if pid == 0 {
		return nil, nil
	}
	cpu0, err := cpuTime(pid)
	if err != nil {
		return nil, err
	}
	rss, _, err := memory(pid)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &processWatch{pid: pid, cpu0: cpu0, start: time.Now(), cancel: cancel, peak: rss}
	w.done.Go(func() {
		t := time.NewTicker(rssSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				rss, _, err := memory(pid)
				if err != nil {
					w.sampling = err
					return
				}
				w.peak = max(w.peak, rss)
			}
		}
	})
	return w, nil
}

// stop ends the window and reports it; a nil watch reports nil.
func (w *processWatch) stop() (*Process, error) {
	if w == nil {
		return nil, nil
	}
	cpu1, err := cpuTime(w.pid)
	elapsed := time.Since(w.start)
	w.cancel()
	w.done.Wait()
	if err != nil {
		return nil, err
	}
	if w.sampling != nil {
		return nil, w.sampling
	}
	rss, hwm, err := memory(w.pid)
	if err != nil {
		return nil, err
	}
	cpu := (cpu1 - w.cpu0).Seconds()
	return &Process{
		PID: w.pid, CPUSeconds: cpu, CPUCores: cpu / elapsed.Seconds(),
		RSSFinalBytes: rss, RSSPeakBytes: max(w.peak, rss), HWMBytes: hwm,
	}, nil
}
