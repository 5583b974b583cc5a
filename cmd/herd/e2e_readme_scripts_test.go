package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// scriptTimeout bounds one README recipe: a PostgreSQL cluster made and
// two replicas started on two busy cores take well under it.
const scriptTimeout = 4 * time.Minute

// loopbackPort finds the ports a recipe names on 127.0.0.1.
var loopbackPort = regexp.MustCompile(`127\.0\.0\.1:(\d{2,5})\b`)

// TestReadmeScriptsRunAsWritten runs every README block marked `check:
// script` as a bash script (errexit, pipefail) in an empty folder with
// bin/herd in it, as a reader would paste it into a terminal on a fresh
// machine. The ports it names on 127.0.0.1 (and herd's default, 8080) are
// swapped for free ones, so that recipes can run beside other tests;
// everything it started is stopped afterwards.
func TestReadmeScriptsRunAsWritten(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	var scripts []readmeBlock
	for _, b := range readmeBlocks(t) {
		if b.check == checkScript {
			scripts = append(scripts, b)
		}
	}
	if len(scripts) == 0 {
		t.Fatal("the README has no block marked `check: script`")
	}
	bin := herdBinary(t)
	for _, b := range scripts {
		t.Run(fmt.Sprintf("README.md:%d", b.line), func(t *testing.T) {
			if strings.Contains(b.body, "/usr/lib/postgresql") && !postgresInstalled() {
				if os.Getenv("HERD_REQUIRE_POSTGRES") != "" {
					t.Fatal("the recipe needs PostgreSQL, which is not installed (HERD_REQUIRE_POSTGRES is set)")
				}
				t.Skip("PostgreSQL is not installed")
			}
			runReadmeScript(t, b, bin)
		})
	}
}

// postgresInstalled says whether Debian's PostgreSQL is on the machine.
func postgresInstalled() bool {
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	return len(m) > 0
}

// runReadmeScript runs one recipe in a folder of its own and stops what it
// left running.
func runReadmeScript(t *testing.T, b readmeBlock, herdBin string) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A copy rather than a link: an unprivileged user must be able to run
	// it, wherever the test binary's folder is.
	if err := copyFile(herdBin, filepath.Join(dir, "bin", "herd")); err != nil {
		t.Fatal(err)
	}
	script, ports := swapPorts(t, b.body)
	env := childEnv("HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "kubeconfig"),
		"HERD_LISTEN=127.0.0.1:"+ports["8080"], "HERD_SERVER=http://127.0.0.1:"+ports["8080"])
	ctx, cancel := context.WithTimeout(t.Context(), scriptTimeout)
	defer cancel()
	// The output goes to a file, not a pipe: what the script leaves in the
	// background holds its output open, and a pipe would keep Wait waiting
	// for it.
	out, err := os.CreateTemp(t.TempDir(), "output")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Close() }()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out
	// Its own process group, so that what it starts in the background is
	// stopped with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if b.notRoot && os.Geteuid() == 0 {
		cred := unprivileged(t)
		cmd.SysProcAttr.Credential = cred
		chownTree(t, dir, int(cred.Uid), int(cred.Gid))
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRecipe(t, dir, cmd.Process.Pid) })
	err = cmd.Wait()
	printed, _ := os.ReadFile(out.Name())
	if err != nil {
		t.Fatalf("README.md:%d: %v\n--- the script as run:\n%s\n--- its output:\n%s", b.line, err, script, printed)
	}
	if len(bytes.TrimSpace(printed)) == 0 {
		t.Fatalf("README.md:%d printed nothing", b.line)
	}
	t.Logf("README.md:%d printed:\n%s", b.line, printed)
}

// swapPorts replaces every port the script names on 127.0.0.1, and herd's
// default 8080, by a free one, wherever the number stands on its own.
func swapPorts(t *testing.T, script string) (string, map[string]string) {
	ports := map[string]string{"8080": ""}
	for _, m := range loopbackPort.FindAllStringSubmatch(script, -1) {
		ports[m[1]] = ""
	}
	keys := make([]string, 0, len(ports))
	for p := range ports {
		keys = append(keys, p)
	}
	slices.Sort(keys)
	for _, p := range keys {
		_, free, _ := strings.Cut(freeAddr(t), ":")
		ports[p] = free
		script = regexp.MustCompile(`\b`+p+`\b`).ReplaceAllString(script, ports[p])
	}
	return script, ports
}

// unprivileged is the user a recipe that refuses root runs as: PostgreSQL's
// own, which its package makes, or nobody.
func unprivileged(t *testing.T) *syscall.Credential {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	t.Skip("no unprivileged user to run a recipe that refuses root")
	return nil
}

// chownTree gives dir and what is in it to uid, and lets that user reach
// it through the test's temporary folders.
func chownTree(t *testing.T, dir string, uid, gid int) {
	for d := filepath.Dir(dir); d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			_ = os.Chmod(d, fi.Mode().Perm()|0o011) // search only: nothing listed
		}
	}
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stopRecipe ends what a recipe left running: its process group (herd
// servers it put in the background) and any PostgreSQL server it started
// in its folder (pg_ctl starts one in a session of its own).
func stopRecipe(t *testing.T, dir string, pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	pids, _ := filepath.Glob(filepath.Join(dir, "*", "postmaster.pid"))
	for _, f := range pids {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		first, _, _ := strings.Cut(string(data), "\n")
		if pid, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && pid > 1 {
			_ = syscall.Kill(pid, syscall.SIGQUIT) // PostgreSQL's immediate shutdown
		}
	}
	// The time a clean stop takes, then whatever is left is killed.
	_ = poll(10*time.Second, func() (bool, error) { return syscall.Kill(-pgid, 0) != nil, nil })
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for _, f := range pids {
		gone := func() (bool, error) { _, err := os.Stat(f); return os.IsNotExist(err), nil }
		if err := poll(10*time.Second, gone); err != nil {
			t.Errorf("the recipe's PostgreSQL server in %s did not stop: %v", dir, err)
		}
	}
	t.Logf("stopped what the recipe started in %s", dir)
}

// copyFile copies an executable.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}
