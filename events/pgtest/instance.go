package pgtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Instance is the PostgreSQL server of this test binary. Stopping it
// affects every test of the binary, so a test that stops it must not run
// in parallel with tests that use it.
type Instance struct {
	bin, dir string // PostgreSQL's bin directory; the cluster's directory
	port     int
	own      owner

	mu     sync.Mutex
	pid    int           // the running postmaster; 0 when stopped
	exited chan struct{} // closed once that postmaster has exited
}

// errNotRunning is a Stop of a server that is not running.
var errNotRunning = errors.New("pgtest: stop: the server is not running")

// errPortInUse is a start that failed because another process took the
// port between its choosing and postgres binding it.
var errPortInUse = errors.New("port already in use")

// stopSignals are pg_ctl's shutdown modes as the signals it sends.
var stopSignals = map[string]syscall.Signal{
	"smart":     syscall.SIGTERM,
	"fast":      syscall.SIGINT,
	"immediate": syscall.SIGQUIT,
}

// Port is the TCP port the server listens on at 127.0.0.1.
func (s *Instance) Port() int { return s.port }

// DataDir is the server's data directory.
func (s *Instance) DataDir() string { return filepath.Join(s.dir, "data") }

// AdminURL is a URL of the server's postgres database, as its superuser.
func (s *Instance) AdminURL() string { return urlOf(s.port, "postgres") }

// urlOf is the libpq URL of database name on the server at port.
func urlOf(port int, name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, name)
}

// Stop stops the server the way pg_ctl stop -m mode does — mode is
// "smart", "fast" or "immediate"; immediate is a crash as far as the data
// is concerned — and returns once it has exited.
func (s *Instance) Stop(mode string) error {
	sig, ok := stopSignals[mode]
	if !ok {
		return fmt.Errorf("pgtest: stop mode %q is none of smart, fast, immediate", mode)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running() {
		return errNotRunning
	}
	if err := syscall.Kill(s.pid, sig); err != nil {
		return fmt.Errorf("pgtest: stop: %w", err)
	}
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		return fmt.Errorf("pgtest: stop -m %s: postgres (pid %d) still running after a minute", mode, s.pid)
	}
	s.pid = 0
	return nil
}

// Start starts the server again after Stop, on the same port and data
// directory, and returns once it accepts connections.
func (s *Instance) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running() {
		return errors.New("pgtest: start: the server is already running")
	}
	return s.start()
}

// running says whether the postmaster is running, forgetting one that has
// exited by itself. The caller holds s.mu.
func (s *Instance) running() bool {
	if s.pid == 0 {
		return false
	}
	select {
	case <-s.exited:
		s.pid = 0
		return false
	default:
		return true
	}
}

// start runs postgres as a child that the kernel sends SIGQUIT when this
// process dies, and waits until it accepts connections.
func (s *Instance) start() error {
	logPath := filepath.Join(s.dir, "postgres.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	logStart, _ := log.Seek(0, io.SeekEnd)
	cmd := s.own.command(context.Background(), s.dir, filepath.Join(s.bin, "postgres"),
		"-D", s.DataDir(), "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+s.dir)
	cmd.Stdout, cmd.Stderr = log, log
	// A parent-death signal goes when the thread that started the child
	// ends, so that thread stays this goroutine's until postgres exits.
	dieWithParent(cmd.SysProcAttr)
	started, exited := make(chan error, 1), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(exited)
		defer func() { _ = log.Close() }()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	s.pid, s.exited = cmd.Process.Pid, exited
	if err := s.waitReady(); err != nil {
		_ = syscall.Kill(s.pid, syscall.SIGQUIT)
		<-exited
		s.pid = 0
		tail := logSince(logPath, logStart)
		if strings.Contains(tail, "Address already in use") {
			err = errPortInUse
		}
		return fmt.Errorf("pgtest: postgres on 127.0.0.1:%d: %w; its log:\n%s", s.port, err, tail)
	}
	return nil
}

// waitReady waits, for a minute at most, until the server takes a
// connection to its postgres database. It connects through the unix socket
// in the cluster's directory, which no other process can be listening on:
// a server on the same TCP port — one that took it first — is not this
// one. (postgres exits if it cannot listen on 127.0.0.1.)
func (s *Instance) waitReady() error {
	socket := "postgres://postgres@/postgres?" + url.Values{
		"host": {s.dir}, "port": {strconv.Itoa(s.port)}, "sslmode": {"disable"},
	}.Encode()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, socket)
		if err == nil {
			err = conn.Close(ctx)
			cancel()
			return err
		}
		cancel()
		if time.Now().After(deadline) {
			return fmt.Errorf("not accepting connections after a minute: %w", err)
		}
		select {
		case <-s.exited:
			return errors.New("postgres exited")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// logSince is what the log at path says after its first offset bytes,
// its last 4 KiB at most.
func logSince(path string, offset int64) string {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) < offset {
		return fmt.Sprintf("(unreadable: %v)", err)
	}
	b = b[offset:]
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}
