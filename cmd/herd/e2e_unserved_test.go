package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestKubectlSaysWhatHerdDoesNotServe: what herd has no answer for
// (container logs, exec, Services) fails in the machine's
// kubectl with herd's reason, not a bare "could not find the requested
// resource".
func TestKubectlSaysWhatHerdDoesNotServe(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	t.Parallel()
	srv := startServe(t, serveOptions{})
	k := newKubectl(t, srv.URL)
	k.must(t, "run", "web", "--image=nginx")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"logs", "web"}, "herd keeps no container logs"},
		{[]string{"exec", "web", "--", "ls"}, "herd cannot run commands in a pod's containers"},
		{[]string{"expose", "pod", "web", "--port", "80"}, "herd has no Services"},
	}
	for _, tt := range tests {
		res := k.run(t, tt.args...)
		if res.Code == 0 || !strings.Contains(res.Stderr, tt.want) {
			t.Errorf("kubectl %s: exit %d, stderr %q, want it to say %q", strings.Join(tt.args, " "), res.Code, res.Stderr, tt.want)
		}
	}
}
