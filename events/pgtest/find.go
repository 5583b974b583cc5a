package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// binGlob matches initdb in each PostgreSQL major version Debian's packages
// install. A variable so that a test can point it where nothing is.
var binGlob = "/usr/lib/postgresql/*/bin/initdb"

// notInstalledError is the one failure to start a server that skips a test
// rather than failing it: there is no PostgreSQL to start.
type notInstalledError struct{ pattern string }

func (e notInstalledError) Error() string {
	return fmt.Sprintf("PostgreSQL 15 is not installed: %s not found; `make deps` installs it", e.pattern)
}

// findBinDir returns the bin directory of PostgreSQL 15 when it is
// installed, and otherwise that of the newest installed major version.
func findBinDir(pattern string) (string, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return "", fmt.Errorf("pgtest: %s: %w", pattern, err)
	}
	best, bestVersion := "", -1
	for _, initdb := range matches {
		dir := filepath.Dir(initdb)
		version, err := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		if err != nil {
			continue
		}
		if version == 15 {
			return dir, nil
		}
		if version > bestVersion {
			best, bestVersion = dir, version
		}
	}
	if best == "" {
		return "", notInstalledError{pattern}
	}
	return best, nil
}

// owner is the user a cluster's files and programs run as.
type owner struct {
	uid, gid int
	cred     *syscall.Credential // nil: this process's own user
}

// clusterOwner is the postgres system user when this process is root —
// initdb, pg_ctl and postgres refuse to run as root — and otherwise this
// process's own user.
func clusterOwner() (owner, error) {
	if os.Geteuid() != 0 {
		return owner{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return owner{}, fmt.Errorf("pgtest: tests run as root, and PostgreSQL will not: %w", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return owner{}, fmt.Errorf("pgtest: postgres user's uid %q: %w", u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return owner{}, fmt.Errorf("pgtest: postgres user's gid %q: %w", u.Gid, err)
	}
	return owner{uid: uid, gid: gid, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}, nil
}

// command runs a program of the cluster's as its owner, from dir, in a
// process group of its own so that a ^C to go test reaches only go test.
func (o owner) command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: o.cred, Setpgid: true}
	return cmd
}
