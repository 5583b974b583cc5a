//go:build !linux

package pgtest

import "syscall"

// dieWithParent does nothing: only Linux ties a child's life to its
// parent's. Elsewhere the server of a killed test process keeps running.
func dieWithParent(*syscall.SysProcAttr) {}
