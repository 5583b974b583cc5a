package main

import (
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"herd/adapters/kubelet/kubelettest"
)

// TestServePollsKubelets: herd serve polls a kubelet given with --kubelet
// on its read-only port and one from a --kubelet-config file over TLS with
// a bearer token, with intervals from a flag and from a HERD_* variable.
// kubectl shows both nodes Ready and the crash-looping pod; the targets
// API lists them; a kubelet that goes away turns NotReady and its node's
// events say why. herd runs with short intervals and health timings so
// that real time passes quickly.
func TestServePollsKubelets(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	plain := kubelettest.New("worker-a")
	web := kubelettest.RunningPod("shop", "web")
	web.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}
	plain.SetPods(web, kubelettest.CrashLoopingPod("shop", "api", 6))
	plainSrv := httptest.NewServer(plain)
	defer plainSrv.Close()

	secure := kubelettest.New("worker-b")
	secure.RequireToken("s3cret")
	secureSrv := httptest.NewTLSServer(secure)
	defer secureSrv.Close()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("kubelet-ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secureSrv.Certificate().Raw})))
	write("token", "s3cret\n")
	cfgFile := write("kubelets.yaml", fmt.Sprintf(`
defaults:
  caFile: kubelet-ca.pem
  bearerTokenFile: token
targets:
  - name: worker-b
    url: %s
`, secureSrv.URL))

	srv := startServe(t, serveOptions{
		Env: []string{"HERD_KUBELET_POLL_INTERVAL=300ms"},
		Args: []string{
			"--kubelet", "worker-a=" + plainSrv.URL, "--kubelet-config", cfgFile,
			"--kubelet-stats-interval", "100ms", "--kubelet-timeout", "2s", "--kubelet-max-backoff", "200ms",
			"--node-monitor-period", "100ms", "--node-monitor-grace-period", "1s", "--node-startup-grace-period", "1s",
		},
	})
	kc := newKubectl(t, srv.URL)
	eventually(t, 20*time.Second, func() error {
		_, rows := table(t, kc.must(t, "get", "nodes"))
		if got := columnByName(rows, 1); got["worker-a"] != "Ready" || got["worker-b"] != "Ready" {
			return fmt.Errorf("STATUS by node %v, want worker-a and worker-b Ready", got)
		}
		return nil
	})
	eventually(t, 20*time.Second, func() error {
		got := kc.must(t, "get", "pod", "api", "-n", "shop", "-o", "jsonpath={.spec.nodeName} {.status.reason} {.status.containerStatuses[0].restartCount}")
		if got != "worker-a CrashLoopBackOff 6" {
			return fmt.Errorf("pod shop/api: %q, want worker-a CrashLoopBackOff 6", got)
		}
		return nil
	})
	// The kubelet's /spec gives the node its CPUs: kubectl divides the
	// pods' requests by them (250m of 4 cores).
	eventually(t, 20*time.Second, func() error {
		if out := kc.must(t, "describe", "node", "worker-a"); !strings.Contains(out, "cpu                250m (6%)") {
			return fmt.Errorf("kubectl describe node worker-a does not show 250m (6%%) of CPU requested:\n%s", out)
		}
		return nil
	})
	var list struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Spec     struct {
				URL             string `json:"url"`
				CAFile          string `json:"caFile"`
				BearerTokenFile string `json:"bearerTokenFile"`
			} `json:"spec"`
			Status struct{ Source string } `json:"status"`
		} `json:"items"`
	}
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/kubelettargets", nil, &list)
	if len(list.Items) != 2 || list.Items[1].Spec.CAFile != filepath.Join(dir, "kubelet-ca.pem") ||
		list.Items[1].Spec.BearerTokenFile != filepath.Join(dir, "token") || list.Items[0].Status.Source != "config" {
		t.Errorf("kubelet targets %+v", list.Items)
	}

	// worker-b's kubelet goes away: NotReady after the grace period, and
	// its events say why.
	secureSrv.Close()
	eventually(t, 20*time.Second, func() error {
		_, rows := table(t, kc.must(t, "get", "nodes"))
		if got := columnByName(rows, 1); got["worker-b"] != "NotReady" || got["worker-a"] != "Ready" {
			return fmt.Errorf("STATUS by node %v, want worker-b NotReady and worker-a Ready", got)
		}
		return nil
	})
	out := kc.must(t, "describe", "node", "worker-b")
	for _, want := range []string{"ScrapeFailed", "herd cannot poll the kubelet", "HeartbeatMissed"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl describe node worker-b lacks %q:\n%s", want, out)
		}
	}
	metrics := mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/metrics", nil, nil)
	for _, want := range []string{
		`herd_kubelet_scrapes_total{endpoint="/stats/summary",target="worker-a"}`,
		`herd_kubelet_scrape_errors_total{endpoint="/healthz",reason="ConnectionRefused",target="worker-b"}`,
		`herd_kubelet_targets 2`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	srv.stop()
}
