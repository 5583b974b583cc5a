//go:build unix

package projections

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far, user and
// system: a rebuild's CPU per event says what it costs whatever else the
// machine runs at the time, where its wall time on a shared machine
// does not.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
