package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlNeedsOnlyTheKubeconfigHerdWrites: herd serve with tokens and
// TLS writes <data-dir>/kubeconfig.yaml, mode 0600, at start, and the
// machine's kubectl lists the nodes with nothing but that file (no
// --server, no token, no CA); herd kubeconfig prints one that does the same.
func TestKubectlNeedsOnlyTheKubeconfigHerdWrites(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	t.Parallel()
	dir := t.TempDir()
	cert, key := selfSignedCert(t, dir)
	// kubectl sends a token over HTTPS only.
	tokens := writeTokens(t, dir, `viewer-secret,vera,2,"herd:viewers"`, `admin-secret,ada,1,"herd:admins"`, `node-secret,system:node:kc-01,3,system:nodes`)
	srv := startServe(t, serveOptions{DataDir: filepath.Join(dir, "data"), CAFile: cert, Args: []string{
		"--token-auth-file", tokens, "--tls-cert-file", cert, "--tls-private-key-file", key,
	}})

	written := filepath.Join(srv.DataDir, "kubeconfig.yaml")
	fi, err := os.Stat(written)
	if err != nil {
		t.Fatalf("herd serve wrote no kubeconfig: %v", err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("%s has mode %v, want 0600 (it holds an administrator's token)", written, mode)
	}
	printed := filepath.Join(dir, "printed.yaml")
	writeFile(t, printed, []byte(mustHerd(t, "kubeconfig", "--server", srv.URL, "--token-auth-file", tokens, "--tls-cert-file", cert).Stdout))

	for _, kubeconfig := range []string{written, printed} {
		env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "KUBECONFIG=" + kubeconfig}
		res := run(t, env, "kubectl", "create", "configmap", "kc-"+strings.TrimSuffix(filepath.Base(kubeconfig), ".yaml"), "--from-literal=a=b")
		if res.Code != 0 {
			t.Errorf("KUBECONFIG=%s kubectl create configmap (an administrator's write): exit %d\n%s", kubeconfig, res.Code, res.Stderr)
		}
		res = run(t, env, "kubectl", "get", "nodes")
		if res.Code != 0 || (!strings.Contains(res.Stdout, "NAME") && !strings.Contains(res.Stderr, "No resources found")) {
			t.Errorf("KUBECONFIG=%s kubectl get nodes: exit %d\nstdout:\n%s\nstderr:\n%s", kubeconfig, res.Code, res.Stdout, res.Stderr)
		}
	}
	srv.stop()
}
