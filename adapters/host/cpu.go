package host

import "sync"

// cpuSampler turns the cumulative CPU time a host counts since boot into
// the share of it that was busy since the previous sample: /proc/stat on
// Linux and kstat's cpu_ticks on illumos only ever grow, so one reading
// says nothing about now and two readings, a heartbeat apart, say all.
type cpuSampler struct {
	mu         sync.Mutex
	busy, all  float64
	hasSampled bool
}

// percent takes a sample of busy and all CPU time (in any one unit, summed
// over every CPU) and returns the busy share since the previous one, 0 to
// 100; nil for the first sample, when no time passed, or when the counters
// went back (a CPU taken offline takes its counts with it), each of which
// starts afresh from this sample.
func (s *cpuSampler) percent(busy, all float64) *float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	prevBusy, prevAll, had := s.busy, s.all, s.hasSampled
	s.busy, s.all, s.hasSampled = busy, all, true
	dBusy, dAll := busy-prevBusy, all-prevAll
	if !had || dAll <= 0 || dBusy < 0 {
		return nil
	}
	p := min(max(dBusy/dAll*100, 0), 100)
	return &p
}
