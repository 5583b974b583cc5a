package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestKubectlSaysWhatHerdDoesNotServe: what herd has no answer for
// (container logs, exec, Services, Secrets, ServiceAccounts, RBAC,
// autoscalers) fails in the machine's kubectl with herd's reason, not a
// bare "could not find the requested resource"; a kind herd has no word
// for is that 404, not a 415 for kubectl's protobuf body.
func TestKubectlSaysWhatHerdDoesNotServe(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	t.Parallel()
	srv := startServe(t, serveOptions{})
	k := newKubectl(t, srv.URL)
	k.must(t, "run", "web", "--image=nginx")
	k.must(t, "create", "deployment", "api", "--image=nginx")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"logs", "web"}, "herd keeps no container logs"},
		{[]string{"exec", "web", "--", "ls"}, "herd cannot run commands in a pod's containers"},
		{[]string{"expose", "pod", "web", "--port", "80"}, "herd has no Services"},
		// kubectl writes these in protobuf: herd says it has no such
		// kind, not that it cannot read the body.
		{[]string{"create", "secret", "generic", "s", "--from-literal=a=b"}, "herd has no Secrets"},
		{[]string{"create", "serviceaccount", "robot"}, "herd has no ServiceAccounts"},
		{[]string{"create", "role", "r", "--verb=get", "--resource=pods"}, "herd has no RBAC objects"},
		{[]string{"autoscale", "deployment", "api", "--min=1", "--max=3"}, "herd has no HorizontalPodAutoscalers"},
		{[]string{"create", "quota", "q", "--hard=pods=3"}, "the server could not find the requested resource"},
	}
	for _, tt := range tests {
		res := k.run(t, tt.args...)
		if res.Code == 0 || !strings.Contains(res.Stderr, tt.want) {
			t.Errorf("kubectl %s: exit %d, stderr %q, want it to say %q", strings.Join(tt.args, " "), res.Code, res.Stderr, tt.want)
		}
	}
}
