//go:build linux

package projections

import "syscall"

// diskFree is statfs(2)'s blocks available to an unprivileged writer.
func diskFree(dir string) (int64, bool) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, false
	}
	return int64(fs.Bavail) * int64(fs.Bsize), true //nolint:unconvert // Bsize is int32 on 32-bit Linux
}
