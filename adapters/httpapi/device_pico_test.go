package httpapi

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// picoNode is the firmware's Node for name, with extra labels and its
// resources replaced when given.
func picoNode(name string, labels map[string]string, resources string) string {
	l := map[string]string{"kubernetes.io/hostname": name, "node.kubernetes.io/instance-type": "rp2040-pico"}
	for k, v := range labels {
		if v == "-" {
			delete(l, k)
			continue
		}
		l[k] = v
	}
	lb, _ := json.Marshal(l)
	if resources == "" {
		resources = `{"cpu":"1","memory":"256Ki","pods":"0"}`
	}
	return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"` + name + `","labels":` + string(lb) + `},` +
		`"status":{"capacity":` + resources + `,"allocatable":` + resources + `,` +
		`"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}],` +
		`"addresses":[{"type":"InternalIP","address":"127.0.0.1"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":18081}}}}`
}

// TestTheDeviceListenerRegistersPicosOnly: what speaks without
// credentials may register as nothing but an RP2040 board — kind rp2040,
// a Pico's capacity — or gets 422 naming the field, with nothing written
// and the name left unbound. A board that names no resources gets a
// Pico's, so the scheduler sees no room on it.
func TestTheDeviceListenerRegistersPicosOnly(t *testing.T) {
	api := newTestAPI(t, nil)
	main := api.serve(t).URL
	dev := deviceListener(t, api, DeviceConfig{
		Allow:          []string{"pico-*"},
		SourceNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")},
	})
	pico := from(t, "127.0.0.3")
	refused := []struct {
		name, body, field string
	}{
		{"herd.dev/kind linux", picoNode("pico-evil", map[string]string{"herd.dev/kind": "linux"}, ""), "metadata.labels[herd.dev/kind]"},
		{"no RP2040 instance type", picoNode("pico-evil", map[string]string{"node.kubernetes.io/instance-type": "-"}, ""), "metadata.labels[node.kubernetes.io/instance-type]"},
		{"another instance type", picoNode("pico-evil", map[string]string{"node.kubernetes.io/instance-type": "m5.16xlarge"}, ""), "metadata.labels[node.kubernetes.io/instance-type]"},
		{"64 CPUs", picoNode("pico-evil", nil, `{"cpu":"64","memory":"256Ki","pods":"0"}`), "status.capacity[cpu]"},
		{"room for pods", picoNode("pico-evil", nil, `{"cpu":"1","memory":"256Ki","pods":"110"}`), "status.capacity[pods]"},
		{"more memory", picoNode("pico-evil", nil, `{"cpu":"1","memory":"64Gi","pods":"0"}`), "status.allocatable[memory]"},
		{"a resource a Pico has not", picoNode("pico-evil", nil, `{"cpu":"1","memory":"256Ki","pods":"0","nvidia.com/gpu":"8"}`), "status.capacity[nvidia.com/gpu]"},
		{"no pods entry", picoNode("pico-evil", nil, `{"cpu":"1","memory":"256Ki"}`), "status.capacity[pods]"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, pico, dev, req{method: "POST", path: "/api/v1/nodes", body: tt.body})
			if a.code != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s, want 422", a.code, a.body)
			}
			var st metav1.Status
			if err := json.Unmarshal(a.body, &st); err != nil {
				t.Fatal(err)
			}
			var fields []string
			for _, c := range st.Details.Causes {
				fields = append(fields, c.Field)
			}
			if !strings.Contains(strings.Join(fields, " "), tt.field) {
				t.Errorf("causes name %v, want %s: %s", fields, tt.field, a.body)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused board moved the log from %d to %d", before, after)
			}
		})
	}
	mustSend(t, nil, main, http.StatusNotFound, req{method: "GET", path: "/apis/herd.dev/v1/devicebindings/pico-evil"})

	// Nor does a device report for a node of another kind that an
	// administrator gave an allowed name.
	mustSend(t, nil, main, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: `{"metadata":{"name":"pico-big","labels":{"herd.dev/kind":"linux"}}}`})
	before := api.head(t)
	if a := send(t, pico, dev, req{method: "PATCH", path: "/api/v1/nodes/pico-big/status", contentType: strategicPatch, body: readyPatch}); a.code != http.StatusForbidden {
		t.Errorf("a device reporting for a linux node: %d %s, want 403", a.code, a.body)
	}
	if after := api.head(t); after != before {
		t.Errorf("the refused report moved the log from %d to %d", before, after)
	}

	// The firmware's own Node passes; so does one naming no resources,
	// which gets a Pico's.
	mustSend(t, pico, dev, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: picoNode("pico-01", nil, "")})
	mustSend(t, pico, dev, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-02")})
	for _, name := range []string{"pico-01", "pico-02"} {
		var n corev1.Node
		if err := json.Unmarshal(mustSend(t, nil, main, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/" + name}).body, &n); err != nil {
			t.Fatal(err)
		}
		cpu, pods := n.Status.Allocatable[corev1.ResourceCPU], n.Status.Allocatable[corev1.ResourcePods]
		if n.Labels["herd.dev/kind"] != "rp2040" || cpu.String() != "1" || pods.String() != "0" {
			t.Errorf("%s: kind %q, allocatable %v; want an rp2040 with one CPU and no pods", name, n.Labels["herd.dev/kind"], n.Status.Allocatable)
		}
	}
}

// TestTheDeviceListenerLimitsEachSourceAddress: a token bucket per
// source address on herd's clock: a burst passes, the next request is 429
// with Retry-After and writes nothing, another address is not held back,
// and time refills the bucket.
func TestTheDeviceListenerLimitsEachSourceAddress(t *testing.T) {
	api := newTestAPI(t, nil)
	dev := deviceListener(t, api, DeviceConfig{
		Allow:          []string{"pico-*"},
		SourceNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32"), netip.MustParsePrefix("127.0.0.4/32")},
		Rate:           0.5, Burst: 3,
	})
	pico, other := from(t, "127.0.0.3"), from(t, "127.0.0.4")
	register := func(c *http.Client, name string) answer {
		return send(t, c, dev, req{method: "POST", path: "/api/v1/nodes", body: picoNode(name, nil, "")})
	}
	for i, name := range []string{"pico-01", "pico-02", "pico-03"} {
		if a := register(pico, name); a.code != http.StatusCreated {
			t.Fatalf("request %d of the burst: %d %s", i, a.code, a.body)
		}
	}
	before := api.head(t)
	r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, dev+"/api/v1/nodes", strings.NewReader(picoNode("pico-04", nil, "")))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	resp, err := pico.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("past the burst: %d, Retry-After %q; want 429 after 2 s", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if api.head(t) != before {
		t.Errorf("a refused request moved the log")
	}
	if a := register(other, "pico-05"); a.code != http.StatusCreated {
		t.Errorf("another address: %d %s", a.code, a.body)
	}
	api.clock.Step(time.Second)
	if a := register(pico, "pico-04"); a.code != http.StatusTooManyRequests {
		t.Errorf("half a token later: %d %s, want 429", a.code, a.body)
	}
	api.clock.Step(time.Second)
	if a := register(pico, "pico-04"); a.code != http.StatusCreated {
		t.Errorf("a token later: %d %s", a.code, a.body)
	}
}

// TestADeviceNeverHearsWhatHerdsProbeFound: herd's probe goes to the
// address and port a node reports; a device reading its Node back, after
// registering or reporting, gets it without KubeletReachable, so that
// nobody learns through herd what answered at an address of their
// choosing. An administrator sees it.
func TestADeviceNeverHearsWhatHerdsProbeFound(t *testing.T) {
	api := newTestAPI(t, nil)
	main := api.serve(t).URL
	dev := deviceListener(t, api, DeviceConfig{
		Allow:          []string{"pico-*"},
		SourceNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")},
	})
	pico := from(t, "127.0.0.3")
	mustSend(t, pico, dev, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: picoNode("pico-01", nil, "")})
	probe := domain.RecordKubeletProbe{Reason: domain.ReasonKubeletHealthy, Reachable: true, Message: "GET http://127.0.0.1:18081/healthz: 200 OK"}
	if _, err := api.Nodes.Execute(t.Context(), domain.Key{Name: "pico-01"}, probe); err != nil {
		t.Fatal(err)
	}
	if a := mustSend(t, nil, main, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/pico-01"}); !strings.Contains(string(a.body), "KubeletReachable") {
		t.Fatalf("the administrator does not see the probe: %s", a.body)
	}
	a := mustSend(t, pico, dev, http.StatusOK, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: strategicPatch, body: readyPatch})
	for _, leak := range []string{"KubeletReachable", "healthz", "200 OK", "KubeletHealthy"} {
		if strings.Contains(string(a.body), leak) {
			t.Errorf("the device's answer says %q: %s", leak, a.body)
		}
	}
	var n corev1.Node
	if err := json.Unmarshal(a.body, &n); err != nil || n.Name != "pico-01" || len(n.Status.Conditions) == 0 {
		t.Errorf("the device's answer is not its Node: %v %s", err, a.body)
	}
}
