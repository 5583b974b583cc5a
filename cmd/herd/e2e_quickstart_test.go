package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQuickstartRunsAsWritten runs every line of the README's blocks
// marked `check: demo` (the quickstart), as written but for herd's address
// and binary, against herd serve --demo 6 (what make run starts) with the
// machine's kubectl. A line that follows (-w, -f) runs until it has
// printed something and is then stopped, as Ctrl-C would.
func TestQuickstartRunsAsWritten(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	var lines []string
	for _, b := range readmeBlocks(t) {
		if b.check == checkDemo {
			lines = append(lines, b.lines()...)
		}
	}
	if len(lines) == 0 {
		t.Fatal("the README has no block marked `check: demo`: the quickstart is untested")
	}
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{"--demo", "6"}})
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(herdBinary(t), filepath.Join(bin, "herd")); err != nil {
		t.Fatal(err)
	}
	// herd's CLI reads its --server from HERD_SERVER when it is not given.
	env := append(os.Environ(), "HOME="+home, "KUBECONFIG="+filepath.Join(home, "kubeconfig"), "HERD_SERVER="+srv.URL)
	// The demo's pods are placed within a few heartbeats.
	eventually(t, 60*time.Second, func() error {
		res := run(t, env, "kubectl", "--server", srv.URL, "get", "pods", "-n", "demo", "--field-selector", "spec.nodeName=demo-linux-00", "-o", "name")
		if res.Code != 0 || strings.TrimSpace(res.Stdout) == "" {
			pods := run(t, env, "kubectl", "--server", srv.URL, "get", "pods", "-n", "demo", "-o", "wide")
			nodes := run(t, env, "kubectl", "--server", srv.URL, "get", "nodes", "-o", "custom-columns=NAME:.metadata.name,TAINTS:.spec.taints[*].key")
			return fmt.Errorf("no demo pod on demo-linux-00 yet: %d %q %q\n%s\n%s", res.Code, res.Stdout, res.Stderr, pods.Stdout, nodes.Stdout)
		}
		return nil
	})
	for _, line := range lines {
		cmdline := strings.ReplaceAll(line, "http://127.0.0.1:8080", srv.URL)
		follows := strings.Contains(cmdline, " -w") || strings.Contains(cmdline, " -f")
		t.Run(line, func(t *testing.T) {
			timeout := 2 * time.Minute
			if follows {
				timeout = 5 * time.Second
			}
			ctx, cancel := context.WithTimeout(t.Context(), timeout)
			defer cancel()
			var out, errOut bytes.Buffer
			cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", cmdline)
			cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = home, env, &out, &errOut
			err := cmd.Run()
			switch {
			case follows && ctx.Err() != nil && out.Len() > 0:
				// It followed until stopped, having printed.
			case err != nil:
				t.Errorf("%s: %v\nstdout:\n%s\nstderr:\n%s", cmdline, err, out.String(), errOut.String())
			case out.Len() == 0:
				t.Errorf("%s printed nothing", cmdline)
			}
		})
	}
}
