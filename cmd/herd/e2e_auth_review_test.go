package main

import (
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// TestKubectlAuthAgainstHerd: the machine's kubectl asks herd what a user
// may do (`kubectl auth can-i`, a SelfSubjectAccessReview) and who it is
// (`kubectl auth whoami`, a SelfSubjectReview), over TLS with tokens; and
// client-go's default clientset (protobuf), holding a node's token, lists
// its own Node with fieldSelector=metadata.name as a kubelet's informer
// does.
func TestKubectlAuthAgainstHerd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, key := selfSignedCert(t, dir)
	tokens := writeTokens(t, dir,
		`admin-secret,alice,1,"herd:admins"`,
		`viewer-secret,bob,2,"herd:viewers"`,
		`node-secret,system:node:web-01,3,system:nodes`)
	srv := startServe(t, serveOptions{CAFile: cert, Args: []string{
		"--token-auth-file", tokens, "--tls-cert-file", cert, "--tls-private-key-file", key,
	}})

	cs := newClientset(t, &rest.Config{Host: srv.URL, BearerToken: "node-secret", TLSClientConfig: rest.TLSClientConfig{CAFile: cert}})
	if _, err := cs.CoreV1().Nodes().Create(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "web-01", Labels: map[string]string{"kubernetes.io/hostname": "web-01"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the node registers itself: %v", err)
	}
	own, err := cs.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{FieldSelector: "metadata.name=web-01"})
	if err != nil || len(own.Items) != 1 || own.Items[0].Name != "web-01" {
		t.Fatalf("the node lists itself: %v %v", own, err)
	}
	if _, err := cs.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{}); err == nil {
		t.Error("the node listed every node")
	}

	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	as := func(token string) kubectl {
		k := newKubectl(t, srv.URL)
		k.auth = []string{"--token", token, "--certificate-authority", cert}
		return k
	}
	tests := []struct {
		token string
		args  []string
		want  string
	}{
		{"admin-secret", []string{"delete", "nodes"}, "yes"},
		{"viewer-secret", []string{"list", "pods", "-A"}, "yes"},
		{"viewer-secret", []string{"delete", "nodes"}, "no"},
		{"node-secret", []string{"get", "nodes/web-01"}, "yes"},
		{"node-secret", []string{"get", "nodes/web-02"}, "no"},
		{"node-secret", []string{"patch", "nodes/web-01", "--subresource", "status"}, "yes"},
		{"node-secret", []string{"list", "nodes"}, "no"},
		{"node-secret", []string{"get", "/metrics"}, "no"},
		{"viewer-secret", []string{"get", "/metrics"}, "yes"},
	}
	for _, tt := range tests {
		res := as(tt.token).run(t, append([]string{"auth", "can-i"}, tt.args...)...)
		// "yes", or "no - " and herd's reason.
		if got, _, _ := strings.Cut(strings.TrimSpace(res.Stdout), " "); got != tt.want {
			t.Errorf("%s: kubectl auth can-i %s: %q (exit %d, %s), want %q", tt.token, strings.Join(tt.args, " "), got, res.Code, res.Stderr, tt.want)
		}
	}
	who := as("node-secret").must(t, "auth", "whoami")
	for _, want := range []string{"system:node:web-01", "system:nodes"} {
		if !strings.Contains(who, want) {
			t.Errorf("kubectl auth whoami does not say %s:\n%s", want, who)
		}
	}
	list := as("viewer-secret").must(t, "auth", "can-i", "--list")
	if !strings.Contains(list, "[get list watch]") {
		t.Errorf("kubectl auth can-i --list for a viewer:\n%s", list)
	}
}
