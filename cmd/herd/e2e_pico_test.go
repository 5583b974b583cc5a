package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"

	"herd/adapters/httpapi"
	"herd/adapters/rp2040/picosim"
)

// TestSimulatedPicoAgainstHerdServe drives the simulated Pico, writing the
// firmware's bytes, against a real herd serve over HTTP: through the
// device listener on 127.0.0.2 from 127.0.0.3, while operators use the
// TLS API with tokens, the herd CLI and kubectl. Timings are short so that
// real time can pass quickly; the rules are the ordinary ones.
func TestSimulatedPicoAgainstHerdServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, key := selfSignedCert(t, dir)
	tokens := writeTokens(t, dir,
		`admin-secret,alice,1,"herd:admins"`,
		`pico-02-key,system:node:pico-02,2,system:nodes`)
	devices := freeAddrOn(t, "127.0.0.2")
	srv := startServe(t, serveOptions{CAFile: cert, Args: []string{
		"--token-auth-file", tokens, "--tls-cert-file", cert, "--tls-private-key-file", key,
		"--device-listen", devices, "--device-allow", "pico-*", "--device-source-networks", "127.0.0.3/32",
		"--node-monitor-period", "100ms", "--node-monitor-grace-period", "2s", "--node-startup-grace-period", "2s",
		"--kubelet-probe-interval", "300ms", "--kubelet-probe-timeout", "200ms",
		// The Pico's port 10250 is on loopback: the network herd may probe.
		"--kubelet-probe-networks", "127.0.0.0/8",
		// The board reports five times a second here, fifty times as
		// often as the firmware: its address needs a larger rate.
		"--device-rate", "50",
	}})
	if !strings.HasPrefix(srv.URL, "https://") {
		t.Fatalf("serve's URL %s, want https", srv.URL)
	}
	admin := newTokenClient(t, srv.URL, cert, "admin-secret")
	cli := []string{"--server", srv.URL, "--token", "admin-secret", "--certificate-authority", cert}

	pico, err := picosim.New(picosim.Config{Name: "pico-01", Server: "http://" + devices, SourceIP: "127.0.0.3", KubeletListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pico.Close() })
	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() {
		stopped <- pico.Run(ctx, clock.RealClock{}, picosim.Timing{ReportEvery: 200 * time.Millisecond, PollEvery: 300 * time.Millisecond})
	}()
	defer func() {
		stop()
		// nil when the subtest that stops the Pico has taken its result.
		if err := <-stopped; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("pico: %v, want it to stop with the cancellation", err)
		}
	}()

	node := func() (corev1.Node, string) {
		var n corev1.Node
		code, body := admin.do(t, http.MethodGet, "/api/v1/nodes/pico-01", "", "", &n)
		if code != http.StatusOK {
			return n, fmt.Sprintf("GET pico-01: %d %s", code, body)
		}
		return n, string(body)
	}
	kubeletReachable := func(want corev1.ConditionStatus, reason string) func() error {
		return func() error {
			n, body := node()
			c, ok := condition(n, "KubeletReachable")
			if !ok || c.Status != want || c.Reason != reason {
				return fmt.Errorf("KubeletReachable %+v, want %s %s: %s", c, want, reason, body)
			}
			return nil
		}
	}

	t.Run("the Pico registers through the device listener and stays Ready", func(t *testing.T) {
		eventually(t, 20*time.Second, func() error {
			n, body := node()
			ready, _ := condition(n, corev1.NodeReady)
			if ready.Status != corev1.ConditionTrue || n.Labels["herd.dev/kind"] != "rp2040" {
				return fmt.Errorf("pico-01 is not a Ready rp2040 node: %s", body)
			}
			if strings.Contains(body, "1970") {
				return fmt.Errorf("herd shows a time from the Pico's clock: %s", body)
			}
			if pods := n.Status.Allocatable[corev1.ResourcePods]; !pods.IsZero() {
				return fmt.Errorf("pico-01 offers room for %s pods", pods.String())
			}
			return nil
		})
	})

	t.Run("herd probes the Pico's port 10250 without being told to", kubeletProbe(eventually, kubeletReachable(corev1.ConditionTrue, "KubeletHealthy")))

	t.Run("the binding shows in herd device list", func(t *testing.T) {
		out := mustHerd(t, append([]string{"device", "list"}, cli...)...).Stdout
		_, rows := table(t, out)
		if got := byName(rows)["pico-01"]; len(got) < 2 || got[1] != "127.0.0.3" {
			t.Errorf("herd device list:\n%s\nwant pico-01 bound to 127.0.0.3", out)
		}
		res := herd(t, nil, "device", "list", "--server", srv.URL, "--certificate-authority", cert)
		if res.Code == 0 || !strings.Contains(res.Stderr, "Unauthorized") {
			t.Errorf("herd device list without a token: exit %d, stderr %q; want Unauthorized", res.Code, res.Stderr)
		}
		res = herd(t, nil, "device", "list", "--server", srv.URL, "--token", "admin-secret")
		if res.Code == 0 || !strings.Contains(res.Stderr, "certificate") {
			t.Errorf("herd device list without herd's CA: exit %d, stderr %q; want a certificate error", res.Code, res.Stderr)
		}
		res = herd(t, []string{"HERD_TOKEN=admin-secret", "HERD_CERTIFICATE_AUTHORITY=" + cert}, "node", "list", "--server", srv.URL)
		if res.Code != 0 || !strings.Contains(res.Stdout, "pico-01") {
			t.Errorf("herd node list with HERD_TOKEN: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
		}
	})

	t.Run("an operator sets pico-config with kubectl and the Pico's next poll reads it", func(t *testing.T) {
		if _, err := exec.LookPath("kubectl"); err != nil {
			t.Skip("kubectl is not on PATH")
		}
		kc := newKubectl(t, srv.URL)
		kc.auth = []string{"--token", "admin-secret", "--certificate-authority", cert}
		kc.must(t, "create", "configmap", "pico-config", "--from-literal=interval=5", "--from-literal=led=blink")
		kc.must(t, "annotate", "configmap", "pico-config", httpapi.AnnotationReadableByNodes+"=pico-*")
		want := map[string]string{"interval": "5", "led": "blink"}
		eventually(t, 20*time.Second, func() error {
			if got := pico.Config(); !maps.Equal(got, want) {
				return fmt.Errorf("the Pico read %v, want %v", got, want)
			}
			return nil
		})
	})

	t.Run("a node token cannot patch another node", func(t *testing.T) {
		other := newTokenClient(t, srv.URL, cert, "pico-02-key")
		code, body := other.do(t, http.MethodPatch, "/api/v1/nodes/pico-01/status", "application/strategic-merge-patch+json",
			`{"status":{"conditions":[{"type":"Ready","status":"False","reason":"Impostor"}]}}`, nil)
		if code != http.StatusForbidden || !strings.Contains(string(body), `"reason":"Forbidden"`) {
			t.Errorf("pico-02 patching pico-01: %d %s, want 403 Forbidden", code, body)
		}
	})

	t.Run("the audit log names who changed what", func(t *testing.T) {
		var list httpapi.AuditEventList
		admin.do(t, http.MethodGet, "/apis/herd.dev/v1/auditevents?"+url.Values{"limit": {"10000"}}.Encode(), "", "", &list)
		actors := map[string]string{}
		for _, e := range list.Items {
			if _, seen := actors[e.Stream+" "+e.Type]; !seen {
				actors[e.Stream+" "+e.Type] = e.Actor + " via " + e.Source
			}
		}
		for k, want := range map[string]string{
			"device/pico-01 DeviceBound":                     "system:device:127.0.0.3 via device-listener",
			"node/pico-01 NodeRegistered":                    "system:device:127.0.0.3 via device-listener",
			"configmap/default/pico-config ConfigMapCreated": "alice via httpapi",
			"node/pico-01 NodeStatusChanged":                 "system:device:127.0.0.3 via device-listener",
		} {
			if actors[k] != want {
				t.Errorf("%s: %q, want %q", k, actors[k], want)
			}
		}
	})

	t.Run("a closed port 10250 is named in KubeletReachable", func(t *testing.T) {
		if err := pico.StopKubelet(); err != nil {
			t.Fatal(err)
		}
		eventually(t, 20*time.Second, kubeletReachable(corev1.ConditionFalse, "ConnectionRefused"))
	})

	t.Run("the Pico never hears what herd's probe found", func(t *testing.T) {
		for _, x := range pico.History() {
			if strings.Contains(string(x.Body), "KubeletReachable") || strings.Contains(string(x.Body), "healthz") {
				t.Fatalf("herd told the device what its probe found:\n%s\n%s", x.Request, x.Body)
			}
			if x.Status == http.StatusTooManyRequests {
				t.Fatalf("the Pico was refused for its rate:\n%s\n%s", x.Request, x.Body)
			}
		}
	})

	t.Run("a Pico that stops reporting goes NotReady", func(t *testing.T) {
		stop()
		if err := <-stopped; !errors.Is(err, context.Canceled) {
			t.Errorf("the Pico's loop ended with %v", err)
		}
		stopped <- nil // for the deferred wait
		eventually(t, 20*time.Second, func() error {
			n, body := node()
			if ready, _ := condition(n, corev1.NodeReady); ready.Status != corev1.ConditionUnknown || ready.Reason != "NodeStatusUnknown" {
				return fmt.Errorf("Ready %+v, want Unknown: %s", ready, body)
			}
			return nil
		})
	})

	t.Run("an admin releases the binding with herd device release", func(t *testing.T) {
		out := mustHerd(t, append([]string{"device", "release", "pico-01"}, cli...)...).Stdout
		if !strings.Contains(out, "released") {
			t.Errorf("herd device release said %q", out)
		}
		if code, _ := admin.do(t, http.MethodGet, "/apis/herd.dev/v1/devicebindings/pico-01", "", "", nil); code != http.StatusNotFound {
			t.Errorf("the released binding answers %d, want 404", code)
		}
	})
}

// kubeletProbe waits for the probe's verdict.
func kubeletProbe(wait func(*testing.T, time.Duration, func() error), cond func() error) func(*testing.T) {
	return func(t *testing.T) { wait(t, 20*time.Second, cond) }
}
