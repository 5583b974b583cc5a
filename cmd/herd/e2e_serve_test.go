package main

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	k8sversion "k8s.io/apimachinery/pkg/version"
)

// TestServeStopsCleanly: SIGTERM and SIGINT make serve drain and exit 0,
// and what it acknowledged is there after a restart.
func TestServeStopsCleanly(t *testing.T) {
	t.Parallel()
	for name, sig := range map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startServe(t, serveOptions{})
			registerAgent(t, srv.URL, "stop-01")
			hb := heartbeat(t, srv.URL, "stop-01", healthyMetrics())
			// An idle keep-alive connection must not hold the stop up.
			if resp, err := get(t.Context(), http.DefaultClient, srv.URL+"/healthz"); err == nil {
				_ = resp.Body.Close()
			}
			code, err := srv.signal(sig, stopTimeout)
			if err != nil {
				t.Fatal(err)
			}
			if code != 0 {
				t.Fatalf("serve exited %d after %s, want 0", code, sig)
			}
			if out := srv.output.String(); strings.Contains(out, "ERROR") {
				t.Errorf("serve logged errors while stopping:\n%s", out)
			}

			srv = startServe(t, serveOptions{DataDir: srv.DataDir})
			var n corev1.Node
			mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes/stop-01", nil, &n)
			if n.ResourceVersion != hb.ResourceVersion {
				t.Errorf("after a restart stop-01 is at resourceVersion %s, want %s", n.ResourceVersion, hb.ResourceVersion)
			}
			srv.stop()
		})
	}
}

// TestServeDrainsOnSIGTERM: a SIGTERM in the middle of a stream of writes
// still exits 0, and every write acknowledged before the stop is kept.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	srv := startServe(t, serveOptions{DataDir: dataDir})
	nodes := []string{"drain-01", "drain-02"}
	for _, name := range nodes {
		registerAgent(t, srv.URL, name)
	}
	acks, inFlight := writeUntilSignalled(t, srv, nodes, syscall.SIGTERM, nil)
	t.Logf("%d writes acknowledged; %d requests in flight at the SIGTERM", len(acks), inFlight)
	if code := srv.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("serve exited %d (%s) after SIGTERM under load, want 0", code, srv.cmd.ProcessState)
	}
	srv = startServe(t, serveOptions{DataDir: dataDir})
	logged := readLog(t, srv.URL)
	checkAcknowledgedWritesInLog(t, srv.URL, logged, acks)
	checkViewsFollowLog(t, srv.URL, logged, nodes, acks)
	srv.stop()
}

// TestServeConfiguration: serve takes its settings from flags and HERD_*
// variables, a flag winning, and refuses a wrong one by name.
func TestServeConfiguration(t *testing.T) {
	t.Parallel()

	t.Run("HERD_LISTEN and HERD_DATA_DIR", func(t *testing.T) {
		t.Parallel()
		addr, dataDir := freeAddr(t), filepath.Join(t.TempDir(), "data")
		p := spawn(t, "http://"+addr, dataDir, []string{"HERD_LISTEN=" + addr, "HERD_DATA_DIR=" + dataDir, "HERD_LOG_LEVEL=warn"}, "serve")
		if err := p.waitReady(readyTimeout); err != nil {
			t.Fatalf("serve with HERD_LISTEN=%s: %v", addr, err)
		}
		if _, err := os.Stat(filepath.Join(dataDir, "herd.db")); err != nil {
			t.Errorf("HERD_DATA_DIR ignored: %v", err)
		}
		var v k8sversion.Info
		mustCall(t, http.StatusOK, http.MethodGet, p.URL+"/version", nil, &v)
		if !strings.Contains(v.GitVersion, "herd-"+e2eVersion) {
			t.Errorf("/version gitVersion %q does not name herd %s", v.GitVersion, e2eVersion)
		}
		p.stop()
	})

	t.Run("a flag wins over HERD_LISTEN", func(t *testing.T) {
		t.Parallel()
		srv := startServe(t, serveOptions{Env: []string{"HERD_LISTEN=nonsense"}})
		srv.stop()
	})

	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = held.Close() })

	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want []string // in the output
	}{
		{name: "listen not host:port", args: []string{"--listen", "nonsense"}, want: []string{`--listen "nonsense"`, "host:port"}},
		{name: "listen address taken", args: []string{"--listen", held.Addr().String()},
			want: []string{"--listen " + held.Addr().String(), "address already in use"}},
		{name: "HERD_LISTEN not host:port", env: []string{"HERD_LISTEN=nonsense"}, want: []string{`--listen "nonsense"`}},
		{name: "several wrong settings at once", args: []string{"--log-level", "loud", "--disk-pressure-percent", "0", "--poll-interval", "0s"},
			want: []string{`--log-level "loud"`, "--disk-pressure-percent 0", "--poll-interval 0s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"serve", "--data-dir", t.TempDir()}, tc.args...)
			if !strings.Contains(strings.Join(tc.args, " "), "--listen") && len(tc.env) == 0 {
				args = append(args, "--listen", freeAddr(t))
			}
			p := spawn(t, "", "", tc.env, args...)
			code, err := p.wait(stopTimeout)
			if err != nil {
				t.Fatalf("herd %s: %v; want it to refuse to start", strings.Join(args, " "), err)
			}
			out := p.output.String()
			if code == 0 {
				t.Errorf("herd %s exited 0, want non-zero", strings.Join(args, " "))
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("herd %s said %q, want it to name %q", strings.Join(args, " "), out, w)
				}
			}
		})
	}
}
