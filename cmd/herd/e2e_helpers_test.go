package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"herd/events/pgtest"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The process-level tests build the real herd binary once per run and
// start it as child processes on loopback. `go test -short` skips them.

// e2eVersion is stamped into the binary the tests build, so that they can
// tell it from a stray herd on PATH.
const e2eVersion = "e2e"

// Deadlines of the process tests. They are generous because a loaded CI
// machine with two CPUs can be slow, and the tests finish as soon as the
// awaited thing happens, never later.
const (
	buildTimeout   = 5 * time.Minute // a cold cgo build of go-sqlite3 alone takes ~75 s
	readyTimeout   = 20 * time.Second
	stopTimeout    = 15 * time.Second // serve's own stop budget is 30 s; a clean stop takes milliseconds
	commandTimeout = 30 * time.Second
	pollEvery      = 20 * time.Millisecond
)

var (
	binDir    string // holds the built binary; removed by TestMain
	buildOnce sync.Once
	herdBin   string
	buildErr  error
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "herd-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "herd e2e:", err)
		os.Exit(2)
	}
	binDir = dir
	code := pgtest.Run(m) // stops the PostgreSQL server of the tests that started one
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// herdBinary returns the path of the herd binary built from this package,
// building it on first use. Unit tests in this package never pay for it.
// The binary is built with the race detector when the tests are: a data
// race inside serve under concurrent requests is then a test failure too.
func herdBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("process-level test: skipped with -short")
	}
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go") // go test puts GOROOT/bin first on PATH
		if err != nil {
			buildErr = fmt.Errorf("the go tool is not on PATH: %w", err)
			return
		}
		out := filepath.Join(binDir, "herd")
		args := []string{"build", "-ldflags", "-X main.version=" + e2eVersion, "-o", out}
		if raceEnabled {
			args = append(args, "-race")
		}
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		start := time.Now()
		cmd := exec.CommandContext(ctx, goTool, append(args, ".")...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, msg)
			return
		}
		fmt.Fprintf(os.Stderr, "herd e2e: built %s (race=%v) in %s\n", out, raceEnabled, time.Since(start).Round(time.Millisecond))
		herdBin = out
	})
	if buildErr != nil {
		t.Fatalf("build herd: %v", buildErr)
	}
	return herdBin
}

// childEnv is the environment of a child process: the test's own, without
// any HERD_* setting a developer may have exported, plus extra. A
// race-enabled child does not linger for its default second at exit
// (GORACE atexit_sleep_ms=1000): that second, on every CLI call, would be
// most of the suite's time.
func childEnv(extra ...string) []string {
	var env []string
	gorace := "atexit_sleep_ms=0"
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "HERD_"):
		case strings.HasPrefix(kv, "GORACE="):
			gorace = strings.TrimPrefix(kv, "GORACE=") + " " + gorace
		default:
			env = append(env, kv)
		}
	}
	if raceEnabled {
		env = append(env, "GORACE="+gorace)
	}
	return append(env, extra...)
}

// syncBuffer is a bytes.Buffer safe for a child's output copier and the
// test reading it at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// herdProc is one running `herd serve`.
type herdProc struct {
	t       testing.TB
	cmd     *exec.Cmd
	URL     string
	DataDir string
	output  *syncBuffer // stdout and stderr together
	done    chan struct{}
	waitErr error // valid once done is closed
	caFile  string
}

// serveOptions are how a test starts serve.
type serveOptions struct {
	// DataDir is --data-dir; a fresh t.TempDir() when empty.
	DataDir string
	// Env is added to the child's environment (HERD_LISTEN=...).
	Env []string
	// Listen is the address serve is expected to listen on. When empty a
	// free loopback port is chosen and passed as --listen.
	Listen string
	// Args are extra arguments after the defaults.
	Args []string
	// CAFile, when set, is the certificate serve's TLS is checked with:
	// the URL is https and readiness is awaited over TLS.
	CAFile string
}

// startServe starts `herd serve` and waits until /readyz answers 200. The
// process is killed when the test ends, whatever happened.
//
// Without a Listen, serve listens on a port the kernel picks (--listen
// 127.0.0.1:0) and the URL is the one it logs. A port found free and
// handed to serve can be taken by another test's herd first; serve then
// fails, and its readiness would have been answered by the other herd.
func startServe(t testing.TB, opts serveOptions) *herdProc {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	pick := opts.Listen == ""
	args := []string{"serve", "--data-dir", opts.DataDir, "--log-level", "warn"}
	scheme := "http://"
	if opts.CAFile != "" {
		scheme = "https://"
	}
	url := scheme + opts.Listen
	if pick {
		// info, for the line that says where serve listens; a test's own
		// --log-level in Args comes later and wins.
		args = []string{"serve", "--data-dir", opts.DataDir, "--log-level", "info", "--listen", "127.0.0.1:0"}
		url = ""
	}
	p := spawn(t, url, opts.DataDir, opts.Env, append(args, opts.Args...)...)
	p.caFile = opts.CAFile
	if pick {
		found, err := p.servingURL(readyTimeout)
		if err != nil {
			t.Fatalf("herd serve did not say where it listens: %v\noutput:\n%s", err, p.output.String())
		}
		p.URL = found
	}
	if err := p.waitReady(readyTimeout); err != nil {
		t.Fatalf("herd serve did not become ready: %v\noutput:\n%s", err, p.output.String())
	}
	return p
}

// servingLine is how serve logs the URL it serves the API at.
var servingLine = regexp.MustCompile(`serving the API.*?"url": "([^"]+)"`)

// servingURL waits for serve to log the URL it serves the API at.
func (p *herdProc) servingURL(timeout time.Duration) (string, error) {
	var url string
	err := poll(timeout, func() (bool, error) {
		if m := servingLine.FindStringSubmatch(p.output.String()); m != nil {
			url = m[1]
			return true, nil
		}
		if p.exited() {
			return false, fmt.Errorf("serve exited before it listened: %v", p.waitErr) //nolint:errorlint // waitErr is nil when serve exited 0; "<nil>" says so, %w would not
		}
		return false, nil
	})
	return url, err
}

// spawn starts the herd binary with args; the caller waits for whatever
// it needs.
func spawn(t testing.TB, url, dataDir string, env []string, args ...string) *herdProc {
	t.Helper()
	out := &syncBuffer{}
	cmd := exec.Command(herdBinary(t), args...) //nolint:noctx // herd outlives t.Context(), which ends before the cleanup that stops it with SIGTERM and checks how it exited
	cmd.Env = childEnv(env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start herd %s: %v", strings.Join(args, " "), err)
	}
	p := &herdProc{t: t, cmd: cmd, URL: url, DataDir: dataDir, output: out, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.exited() {
			_ = cmd.Process.Kill()
			<-p.done
		}
		checkNoRace(t, "herd "+args[0], out.String())
		if t.Failed() {
			t.Logf("output of herd %s:\n%s", strings.Join(args, " "), out.String())
		}
	})
	return p
}

func (p *herdProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitReady polls /readyz until it answers 200, the process exits, or the
// deadline passes.
func (p *herdProc) waitReady(timeout time.Duration) error {
	c := &http.Client{Timeout: time.Second, Transport: trustingTransport(p.t, p.caFile)}
	var last error
	err := poll(timeout, func() (bool, error) {
		if p.exited() {
			return false, fmt.Errorf("serve exited before it was ready: %v", p.waitErr) //nolint:errorlint // waitErr is nil when serve exited 0; "<nil>" says so, %w would not
		}
		resp, err := get(p.t.Context(), c, p.URL+"/readyz")
		if err != nil {
			last = err
			return false, nil
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		last = fmt.Errorf("/readyz: %s", resp.Status)
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("%w (last: %w)", err, last)
	}
	return err
}

// signal sends sig and waits for the process to exit, returning its exit
// code (-1 when a signal ended it).
func (p *herdProc) signal(sig os.Signal, timeout time.Duration) (int, error) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		return 0, fmt.Errorf("signal %v: %w", sig, err)
	}
	return p.wait(timeout)
}

// wait waits for the process to exit on its own.
func (p *herdProc) wait(timeout time.Duration) (int, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode(), nil
	case <-timer.C:
		return 0, fmt.Errorf("herd did not exit within %s", timeout)
	}
}

// stop sends SIGTERM and requires a clean exit: code 0 within stopTimeout.
func (p *herdProc) stop() {
	p.t.Helper()
	code, err := p.signal(syscall.SIGTERM, stopTimeout)
	if err != nil {
		p.t.Fatalf("stop serve: %v", err)
	}
	if code != 0 {
		p.t.Fatalf("serve exited %d after SIGTERM, want 0 (%v)", code, p.waitErr)
	}
}

// checkNoRace fails the test when a race-enabled child reported a race.
func checkNoRace(t testing.TB, what, output string) {
	t.Helper()
	if strings.Contains(output, "WARNING: DATA RACE") {
		t.Errorf("%s reported a data race:\n%s", what, output)
	}
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("free port %s: %v", addr, err)
	}
	return addr
}

// poll calls cond every pollEvery until it reports done, returns an error,
// or timeout passes.
func poll(timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		done, err := cond()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-deadline.C:
			return fmt.Errorf("still waiting after %s", timeout)
		case <-tick.C:
		}
	}
}

// eventually fails the test unless cond holds within timeout; cond's last
// error says what was still missing.
func eventually(t *testing.T, timeout time.Duration, cond func() error) {
	t.Helper()
	var last error
	if err := poll(timeout, func() (bool, error) {
		last = cond()
		return last == nil, nil
	}); err != nil {
		t.Fatalf("%v: %v", err, last)
	}
}

// result is how a short-lived command ended.
type result struct {
	Stdout, Stderr string
	Code           int
}

// run runs a command to completion within commandTimeout. A non-zero exit
// is a result, not an error; a command that does not finish fails the test.
func run(t *testing.T, env []string, name string, args ...string) result {
	t.Helper()
	return runWithin(t, commandTimeout, env, name, args...)
}

// runWithin is run with a time limit of its own, for a command that does
// a fleet's worth of work (loadgen registering a thousand nodes on a
// machine busy with the rest of the suite).
func runWithin(t *testing.T, limit time.Duration, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %s did not finish within %s\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), limit, res.Stdout, res.Stderr)
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", name, err)
	}
	return res
}

// herd runs the herd binary with args and the given extra environment.
func herd(t *testing.T, env []string, args ...string) result {
	t.Helper()
	res := run(t, childEnv(env...), herdBinary(t), args...)
	checkNoRace(t, "herd "+strings.Join(args, " "), res.Stderr)
	return res
}

// mustHerd runs herd and requires exit 0.
func mustHerd(t *testing.T, args ...string) result {
	t.Helper()
	res := herd(t, nil, args...)
	if res.Code != 0 {
		t.Fatalf("herd %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), res.Code, res.Stdout, res.Stderr)
	}
	return res
}

// apiClient talks to one serve in the tests.
var apiClient = &http.Client{Timeout: 10 * time.Second}

// call sends body (JSON-encoded unless it is already []byte) and decodes a
// 2xx answer into out when out is not nil. It returns the status code and
// the raw response body.
func call(t *testing.T, method, url string, body, out any) (int, []byte) {
	t.Helper()
	a := send(t, method, url, body)
	if out != nil && a.code < 300 {
		if err := json.Unmarshal(a.body, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, url, a.body, err)
		}
	}
	return a.code, a.body
}

// answer is a response as send read it.
type answer struct {
	code   int
	header http.Header
	body   []byte
}

// newJSONRequest is a request of body (JSON-encoded unless it is already
// []byte) that asks for JSON back.
func newJSONRequest(method, url string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		data, ok := body.([]byte)
		if !ok {
			var err error
			if data, err = json.Marshal(body); err != nil {
				return nil, fmt.Errorf("encode %s %s: %w", method, url, err)
			}
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, url, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	return req, nil
}

// send sends body as call does and returns the answer, its body read.
func send(t *testing.T, method, url string, body any) answer {
	t.Helper()
	req, err := newJSONRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := apiClient.Do(req.WithContext(t.Context()))
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return answer{code: resp.StatusCode, header: resp.Header, body: data}
}

// mustCall is call that requires the status want.
func mustCall(t *testing.T, want int, method, url string, body, out any) []byte {
	t.Helper()
	code, data := call(t, method, url, body, out)
	if code != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, url, code, want, data)
	}
	return data
}

// table parses the aligned table kubectl and herd print: the header's
// words and each row's cells, in the order printed. Cells are cut
// at the header's column offsets, so that empty cells and cells with
// spaces ("Ubuntu 24.04.1 LTS") come out right.
func table(t *testing.T, out string) (header []string, rows [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatalf("no table in %q", out)
	}
	var starts []int
	for i, r := range lines[0] {
		if r != ' ' && (i == 0 || lines[0][i-1] == ' ') {
			starts = append(starts, i)
		}
	}
	cut := func(line string) []string {
		cells := make([]string, len(starts))
		for i, s := range starts {
			end := len(line)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(line))
			}
			if s < end {
				cells[i] = strings.TrimSpace(line[s:end])
			}
		}
		return cells
	}
	header = cut(lines[0])
	for _, line := range lines[1:] {
		rows = append(rows, cut(line))
	}
	return header, rows
}

// byName keys a table's rows by their first cell, the object's name.
func byName(rows [][]string) map[string][]string {
	out := map[string][]string{}
	for _, r := range rows {
		out[r[0]] = r
	}
	return out
}

// column returns cell i of every row, in the order printed.
func column(rows [][]string, i int) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r[i])
	}
	return out
}

// columnByName maps each row's name to its cell in column i.
func columnByName(rows [][]string, i int) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		out[r[0]] = r[i]
	}
	return out
}

// names returns the rows' names, sorted.
func names(rows [][]string) []string {
	return slices.Sorted(maps.Keys(byName(rows)))
}

// get is c.Get bound to ctx, so that a request ends with its test.
func get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

// newClientset is client-go's clientset for cfg, as a program builds it:
// protobuf on the wire unless cfg says otherwise.
func newClientset(t testing.TB, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
