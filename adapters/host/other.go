//go:build !linux && !illumos

package host

import (
	"fmt"
	"runtime"
)

// Local refuses: herd's agent reads Linux and illumos hosts only.
func Local(Config) (Source, error) {
	return nil, fmt.Errorf("host metrics: herd's agent reads linux and illumos hosts, not %s", runtime.GOOS)
}

// LocalServices refuses: herd's agent watches systemd units on Linux and
// SMF services on illumos only.
func LocalServices() (ServiceManager, error) {
	return nil, fmt.Errorf("--watch-service: herd's agent watches systemd (linux) and SMF (illumos) services, not %s' services", runtime.GOOS)
}

// ServiceName is name as given: this platform watches no services.
func ServiceName(name string) string { return name }
