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
