package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// dirPrefix begins the name of every cluster's directory, followed by the
// pid of the test process that made it.
const dirPrefix = "herd-pgtest-"

// startAttempts bounds the retries of a start whose free port was taken
// before postgres could bind it.
const startAttempts = 5

// start makes a new cluster under os.TempDir() and starts a server on it.
func start() (*Instance, error) {
	bin, err := findBinDir(binGlob)
	if err != nil {
		return nil, err
	}
	own, err := clusterOwner()
	if err != nil {
		return nil, err
	}
	removeStale(os.TempDir(), bin, own)
	dir, err := os.MkdirTemp(os.TempDir(), fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Instance{bin: bin, dir: dir, own: own}
	if err := s.initdb(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	for range startAttempts {
		if s.port, err = freePort(); err != nil {
			break
		}
		if err = s.start(); !errors.Is(err, errPortInUse) {
			break
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// initdb gives the cluster's directory to its owner and makes the cluster
// in it: superuser postgres, trusted on every connection, UTF-8, C locale.
func (s *Instance) initdb() error {
	if s.own.cred != nil {
		if err := os.Chown(s.dir, s.own.uid, s.own.gid); err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
		if err := reachable(s.dir, s.own); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := s.own.command(ctx, s.dir, filepath.Join(s.bin, "initdb"),
		"-D", s.DataDir(), "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: initdb: %w:\n%s", err, out)
	}
	return nil
}

// reachable checks that own may pass through every directory above dir,
// which the postgres user cannot when TMPDIR is, say, root's 0700 home.
func reachable(dir string, own owner) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
		perm, st := fi.Mode().Perm(), fi.Sys().(*syscall.Stat_t)
		ok := perm&0o001 != 0 ||
			int(st.Uid) == own.uid && perm&0o100 != 0 ||
			int(st.Gid) == own.gid && perm&0o010 != 0
		if !ok {
			return fmt.Errorf("pgtest: the postgres user cannot reach %s through %s (mode %v); set TMPDIR to a directory it can", dir, p, perm)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// freePort is a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: finding a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("pgtest: finding a free port: %w", err)
	}
	return port, nil
}
