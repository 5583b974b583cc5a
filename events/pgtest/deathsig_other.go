//go:build !linux

package pgtest

import "syscall"

// dieWithParent does nothing: only Linux ties a child's life to its
// parent's. Elsewhere the server of a killed test process runs until the
// next test binary that starts one stops it as stale.
func dieWithParent(*syscall.SysProcAttr) {}
