package whatif

import (
	"os"

	"golang.org/x/sys/unix"
)

// defaultScratchRoot is scratchRoot on this machine.
func defaultScratchRoot() string { return scratchRoot(os.Getenv, unix.Statfs) }

// sharedMemoryDir is the tmpfs most Linux systems mount for shared
// memory.
const sharedMemoryDir = "/dev/shm"

// scratchMinFree is the room a tmpfs must have left for the what-if to
// put its log there: an hour of a 1,000-node fleet's simulation peaked
// at 176 MB (its log and WAL); a day's window holds more, unmeasured.
const scratchMinFree = 2 << 30

// scratchRoot is the directory the what-if makes its scratch directory
// in: the one TMPDIR names, when it names one; otherwise the shared
// memory tmpfs when there is one with room, so that the simulation's log
// (tens of thousands of commits an hour, each a write of its WAL, and
// the checkpoints after them) lives in memory and never reaches a disk
// that herd serve may be syncing its own log on; otherwise the system's
// temporary directory. statfs is unix.Statfs but in tests.
func scratchRoot(getenv func(string) string, statfs func(string, *unix.Statfs_t) error) string {
	if dir := getenv("TMPDIR"); dir != "" {
		return dir
	}
	var st unix.Statfs_t
	//nolint:unconvert // Statfs_t's fields are narrower on 32-bit Linux
	if err := statfs(sharedMemoryDir, &st); err != nil || int64(st.Type) != unix.TMPFS_MAGIC {
		return os.TempDir()
	}
	//nolint:gosec,unconvert // a block count and size fit int64; narrower on 32-bit Linux
	if free := int64(st.Bavail) * int64(st.Bsize); free < scratchMinFree {
		return os.TempDir()
	}
	return sharedMemoryDir
}
