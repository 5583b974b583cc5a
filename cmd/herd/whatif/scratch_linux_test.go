package whatif

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestScratchRoot(t *testing.T) {
	noEnv := func(string) string { return "" }
	tmpfs := func(free int64) func(string, *unix.Statfs_t) error {
		return func(path string, st *unix.Statfs_t) error {
			if path != sharedMemoryDir {
				t.Errorf("statfs of %s, want %s", path, sharedMemoryDir)
			}
			st.Type = unix.TMPFS_MAGIC
			st.Bsize = 4096
			st.Bavail = uint64(free / 4096) //nolint:gosec // positive in these cases
			return nil
		}
	}
	disk := func(_ string, st *unix.Statfs_t) error {
		st.Type = unix.EXT4_SUPER_MAGIC
		st.Bsize, st.Bavail = 4096, 1<<30
		return nil
	}
	missing := func(string, *unix.Statfs_t) error { return unix.ENOENT }
	t.Setenv("TMPDIR", "") // os.TempDir's answer below is /tmp
	cases := []struct {
		name   string
		getenv func(string) string
		statfs func(string, *unix.Statfs_t) error
		want   string
	}{
		{"a tmpfs with room", noEnv, tmpfs(scratchMinFree), sharedMemoryDir},
		{"a tmpfs too full", noEnv, tmpfs(scratchMinFree - 4096), os.TempDir()},
		{"a disk at /dev/shm", noEnv, disk, os.TempDir()},
		{"no /dev/shm", noEnv, missing, os.TempDir()},
		{"TMPDIR named", func(k string) string {
			if k == "TMPDIR" {
				return "/somewhere"
			}
			return ""
		}, tmpfs(scratchMinFree), "/somewhere"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := scratchRoot(c.getenv, c.statfs); got != c.want {
				t.Errorf("scratchRoot = %s, want %s", got, c.want)
			}
		})
	}
}
