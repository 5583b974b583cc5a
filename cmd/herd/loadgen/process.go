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

// Process is herd's process over the measured window, or several of them
// together.
type Process struct {
	// PID is the process measured; none for processes together.
	PID int `json:"pid,omitempty"`
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

// processWatch measures a set of processes from start until stop.
type processWatch struct {
	pids   []int
	cpu0   []time.Duration
	start  time.Time
	cancel context.CancelFunc
	done   sync.WaitGroup
	// peaks are each process's most resident memory sampled, peakSum the
	// most they held together at one sample.
	peaks    []int64
	peakSum  int64
	sampling error
}

// watchProcesses starts measuring pids; nil when there are none.
func watchProcesses(pids []int) (*processWatch, error) {
	if len(pids) == 0 {
		return nil, nil
	}
	w := &processWatch{pids: pids, cpu0: make([]time.Duration, len(pids)), peaks: make([]int64, len(pids))}
	for k, pid := range pids {
		cpu, err := cpuTime(pid)
		if err != nil {
			return nil, err
		}
		w.cpu0[k] = cpu
	}
	if err := w.sample(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.start, w.cancel = time.Now(), cancel
	w.done.Go(func() {
		t := time.NewTicker(rssSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := w.sample(); err != nil {
					w.sampling = err
					return
				}
			}
		}
	})
	return w, nil
}

// sample reads every process's resident memory, one after the other, and
// keeps the peaks.
func (w *processWatch) sample() error {
	var sum int64
	for k, pid := range w.pids {
		rss, _, err := memory(pid)
		if err != nil {
			return err
		}
		w.peaks[k] = max(w.peaks[k], rss)
		sum += rss
	}
	w.peakSum = max(w.peakSum, sum)
	return nil
}

// stop ends the window and reports it: the processes together, and each
// in the order of pids. The total of one process is that process; of
// several it has no PID, and its high-water mark is the sum of theirs (at
// most, since they need not have peaked at once). A nil watch reports
// nil.
func (w *processWatch) stop() (*Process, []Process, error) {
	if w == nil {
		return nil, nil, nil
	}
	cpu1 := make([]time.Duration, len(w.pids))
	var err error
	for k, pid := range w.pids {
		if cpu1[k], err = cpuTime(pid); err != nil {
			break
		}
	}
	elapsed := time.Since(w.start)
	w.cancel()
	w.done.Wait()
	if err != nil {
		return nil, nil, err
	}
	if w.sampling != nil {
		return nil, nil, w.sampling
	}
	each := make([]Process, len(w.pids))
	var total Process
	for k, pid := range w.pids {
		rss, hwm, err := memory(pid)
		if err != nil {
			return nil, nil, err
		}
		cpu := (cpu1[k] - w.cpu0[k]).Seconds()
		each[k] = Process{
			PID: pid, CPUSeconds: cpu, CPUCores: cpu / elapsed.Seconds(),
			RSSFinalBytes: rss, RSSPeakBytes: max(w.peaks[k], rss), HWMBytes: hwm,
		}
		total.CPUSeconds += cpu
		total.CPUCores += each[k].CPUCores
		total.RSSFinalBytes += rss
		total.HWMBytes += hwm
	}
	total.RSSPeakBytes = max(w.peakSum, total.RSSFinalBytes)
	if len(each) == 1 {
		total = each[0]
	}
	return &total, each, nil
}
