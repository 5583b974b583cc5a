package app

import (
	"fmt"
	"syscall"

	"go.uber.org/zap"
)

// raiseFileLimit makes sure herd may open as many files as the system
// lets it: every connection, watches above all, is one descriptor, and at
// the usual soft limit of 1,024 a few hundred watches stop herd accepting
// connections at all (heartbeats and /readyz among them). Go's os package
// already raises the soft limit to the hard one when it starts (Go 1.19;
// children started through os/exec get the original back); this checks
// that it did, raises it where it did not, and logs the limit an operator
// needs to know.
func raiseFileLimit(log *zap.Logger) error {
	lim, err := fileLimit()
	if err != nil {
		return err
	}
	if lim.Cur < lim.Max {
		raised := syscall.Rlimit{Cur: lim.Max, Max: lim.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
			log.Warn("cannot raise the open file limit to its hard limit", zap.Uint64("soft", lim.Cur), zap.Uint64("hard", lim.Max), zap.Error(err))
		} else {
			lim = raised
		}
	}
	log.Info("open file limit", zap.Uint64("soft", lim.Cur), zap.Uint64("hard", lim.Max))
	return nil
}

// fileLimit is the process's open file limit.
func fileLimit() (syscall.Rlimit, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return lim, fmt.Errorf("read the open file limit: %w", err)
	}
	return lim, nil
}
