package events

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// LockFileName is the advisory lock file beside the database in a data
// directory. Its contents name the process that holds it; the lock itself
// is the flock on it, which the kernel drops when that process ends, so a
// herd killed with SIGKILL leaves no stale lock behind.
const LockFileName = "herd.lock"

// DatabaseFileName is the event log's SQLite file in a data directory.
const DatabaseFileName = "herd.db"

// DataDirLock is a held lock on a data directory: while it is held, no
// other herd that asks for the lock may serve, rebuild or vacuum the
// database there. SQLite's own locks do not cover this: they keep two
// writers from interleaving one transaction, not a rebuild from
// rewriting every view under a running server.
type DataDirLock struct {
	f *os.File
}

// LockedError says that another process holds a data directory's lock,
// and which one, as far as its lock file tells.
type LockedError struct {
	// Database is the database file the holder uses.
	Database string
	// PID is the holder's process id; 0 when the lock file does not say
	// (the holder took the lock and has not yet written it).
	PID int
	// Role is what the holder does, such as "herd serve"; empty when the
	// lock file does not say.
	Role string
}

func (e *LockedError) Error() string {
	holder := e.Role
	if holder == "" {
		holder = "another herd"
	}
	if e.PID > 0 {
		return fmt.Sprintf("%s (pid %d) holds %s", holder, e.PID, e.Database)
	}
	return fmt.Sprintf("%s holds %s", holder, e.Database)
}

// LockDataDir takes the lock of the data directory dir for role (the
// command, such as "herd serve"), without waiting: when another process
// holds it, the error is a *LockedError naming that process. Release
// gives the lock back; so does the end of the process.
func LockDataDir(dir, role string) (*DataDirLock, error) {
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close() // read-only use so far: the lock error is the one that matters
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, holder(dir, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := writeHolder(f, role); err != nil {
		_ = f.Close() // the write error is the one that matters
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &DataDirLock{f: f}, nil
}

// Release gives the lock back. The file stays: removing it would let a
// process that opened it before the removal lock a file no one else sees.
func (l *DataDirLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	return errors.Join(f.Truncate(0), f.Close())
}

// writeHolder replaces the lock file's contents with "PID ROLE".
func writeHolder(f *os.File, role string) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(fmt.Sprintf("%d %s\n", os.Getpid(), role)), 0)
	return err
}

// holder reads who holds the lock at path into a *LockedError.
func holder(dir, path string) error {
	e := &LockedError{Database: filepath.Join(dir, DatabaseFileName)}
	b, err := os.ReadFile(path)
	if err != nil {
		return e
	}
	pid, role, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	if n, err := strconv.Atoi(pid); err == nil && n > 0 {
		e.PID = n
		e.Role = strings.TrimSpace(role)
	}
	return e
}
