package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// removeStale removes the clusters in tmp of test processes that no longer
// exist — killed before Run could stop their servers — stopping the
// server still running in one, if any, with pg_ctl stop -m immediate
// first. What it cannot remove (another user's, say) it leaves.
func removeStale(tmp, bin string, own owner) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, dirPrefix+"*"))
	for _, dir := range dirs {
		pid, ok := pidOf(filepath.Base(dir))
		if !ok || pid == os.Getpid() || alive(pid) {
			continue
		}
		data := filepath.Join(dir, "data")
		if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_ = own.command(ctx, tmp, filepath.Join(bin, "pg_ctl"),
				"stop", "-D", data, "-m", "immediate", "-w", "-s").Run()
			cancel()
		}
		_ = os.RemoveAll(dir)
	}
}

// pidOf is the pid in a cluster directory's name, herd-pgtest-<pid>-*.
func pidOf(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, dirPrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// alive says whether a process with this pid exists and is not a zombie
// (a killed test process stays one when nothing reaps it, as in a
// container whose first process is not an init).
func alive(pid int) bool {
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// The state follows the command's name, which is in parentheses.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
			return stat[i+2] != 'Z'
		}
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
