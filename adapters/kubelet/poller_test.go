package kubelet

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"herd/adapters/kubelet/kubelettest"
	"herd/domain"
	"herd/events/eventstest"
)

func serve(t *testing.T, k *kubelettest.Kubelet) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(k)
	t.Cleanup(srv.Close)
	return srv
}

// quietTLS serves k over TLS on loopback, with cfg when given, without
// logging the handshakes the tests make fail on purpose.
func quietTLS(t *testing.T, k *kubelettest.Kubelet, cfg *tls.Config) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(k)
	srv.TLS = cfg
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestPollerRegistersHeartbeatsAndReportsPods(t *testing.T) {
	k := kubelettest.New("worker-a")
	k.SetPods(kubelettest.RunningPod("shop", "web"), kubelettest.CrashLoopingPod("shop", "api", 7))
	srv := serve(t, k)
	r := newRig(t, k, srv, nil)

	regs, hbs, fails, pods := r.sink.snapshot()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	portNum := int32(0)
	for _, c := range port {
		portNum = portNum*10 + c - '0'
	}
	wantReg := domain.Registration{
		Name: "worker-a", Kind: domain.KindKubelet,
		Annotations: map[string]string{"herd.dev/kubelet-url": srv.URL},
		Addresses:   []domain.Address{{Type: "InternalIP", Address: "10.20.4.17"}, {Type: "Hostname", Address: "worker-a"}},
		// CPU from /spec, which the summary has no figure for.
		Capacity: domain.ResourceList{"cpu": kubelettest.Cores * 1000, "memory": kubelettest.MemoryCapacity,
			"ephemeral-storage": kubelettest.DiskCapacity, "pods": 110},
		// The kubelet's own arithmetic: kubeReserved 512Mi and the default
		// hard thresholds (100Mi, 10% of the disk) are not for pods.
		Allocatable: domain.ResourceList{"cpu": kubelettest.Cores * 1000, "memory": kubelettest.MemoryCapacity - 512<<20 - 100<<20,
			"ephemeral-storage": kubelettest.DiskCapacity * 9 / 10, "pods": 110},
		Info: domain.NodeInfo{AgentVersion: kubelettest.Version,
			MachineID: kubelettest.MachineID, SystemUUID: kubelettest.SystemUUID, BootID: kubelettest.BootID},
		KubeletPort: portNum,
	}
	if len(regs) != 1 || regs[0].restarted || regs[0].reg.UID == "" {
		t.Fatalf("registrations %+v, want one fresh one with a UID", regs)
	}
	if diff := cmp.Diff(wantReg, regs[0].reg, cmpopts.IgnoreFields(domain.Registration{}, "UID")); diff != "" {
		t.Errorf("registration (-want +got):\n%s", diff)
	}
	wantHB := domain.RecordHeartbeat{
		Kubelet: &domain.KubeletMetrics{
			CPUUsageNanoCores: u64(468_231_907), CPUUsageCoreNanoSeconds: u64(81_237_785_130_882),
			MemoryAvailableBytes: u64(12 << 30), MemoryWorkingSetBytes: u64(4 << 30),
			NodeFSAvailableBytes: u64(75 << 30), NodeFSCapacityBytes: u64(100 << 30),
			NodeFSInodesFree: u64(kubelettest.Inodes * 3 / 4), NodeFSInodes: u64(kubelettest.Inodes),
			ImageFSAvailableBytes: u64(75 << 30), ImageFSCapacityBytes: u64(100 << 30),
			ImageFSInodesFree: u64(kubelettest.Inodes * 3 / 4), ImageFSInodes: u64(kubelettest.Inodes),
			RlimitMaxPID: i64(kubelettest.MaxPID), RlimitCurProc: i64(612),
		},
		Reported: []domain.ReportedCondition{
			{Type: domain.ConditionReady, Status: domain.ConditionTrue, Reason: "KubeletReady", Message: "kubelet answers /healthz"},
			memOK, diskOK, pidOK, cpuOK,
		},
	}
	if len(hbs) != 1 {
		t.Fatalf("%d heartbeats, want 1", len(hbs))
	}
	if diff := cmp.Diff(wantHB, hbs[0]); diff != "" {
		t.Errorf("heartbeat (-want +got):\n%s", diff)
	}
	if len(fails) != 0 {
		t.Errorf("scrape failures %+v, want none", fails)
	}
	if len(pods) != 1 || len(pods[0]) != 2 || pods[0][0].Name != "api" || pods[0][0].Status.Reason != ReasonCrashLoopBackOff {
		t.Fatalf("pods %+v, want api (crash-looping) and web", pods)
	}

	// Ten seconds on: the next heartbeat, and nothing else.
	r.pass(10 * time.Second)
	if _, hbs, _, _ := r.sink.snapshot(); len(hbs) != 2 {
		t.Errorf("%d heartbeats after 10s, want 2", len(hbs))
	}
	if n := k.Requests("/pods"); n != 1 {
		t.Errorf("/pods polled %d times in 10s, want once", n)
	}
	// Thirty seconds after the start the slow poll comes again; the pods
	// did not change, so herd is not told again.
	r.pass(20 * time.Second)
	if n := k.Requests("/pods"); n != 2 {
		t.Errorf("/pods polled %d times in 30s, want twice", n)
	}
	if _, _, _, pods := r.sink.snapshot(); len(pods) != 1 {
		t.Errorf("pods reported %d times, want once: they did not change", len(pods))
	}
	k.SetPods(kubelettest.RunningPod("shop", "web"))
	r.pass(30 * time.Second)
	if _, _, _, pods := r.sink.snapshot(); len(pods) != 2 || len(pods[1]) != 1 {
		t.Errorf("after a pod left: %d reports, want 2, the last with one pod", len(pods))
	}
	for _, ep := range []string{endpointHealthz, endpointSummary, endpointPods, endpointConfigz, endpointProbes, endpointResource, endpointSyncLoop} {
		if n := testutil.ToFloat64(r.metrics.scrapes.WithLabelValues("worker-a", ep)); n == 0 {
			t.Errorf("no scrape of %s counted", ep)
		}
	}
	if up := testutil.ToFloat64(r.metrics.up.WithLabelValues("worker-a")); up != 1 {
		t.Errorf("herd_kubelet_up %v, want 1", up)
	}
}

func TestPollerPressureByTheKubeletsThresholds(t *testing.T) {
	tests := []struct {
		name         string
		evictionHard map[string]string
		configz      bool
		available    uint64
		want         domain.ConditionStatus
		message      string
	}{
		{"below the default 100Mi", nil, true, 99 << 20, domain.ConditionTrue, "memory.available is below the eviction threshold 100Mi"},
		{"above the default", nil, true, 900 << 20, domain.ConditionFalse, "kubelet has sufficient memory available"},
		{"below the kubelet's own 1Gi", map[string]string{"memory.available": "1Gi"}, true, 900 << 20, domain.ConditionTrue, "memory.available is below the eviction threshold 1Gi"},
		{"no /configz: the defaults", map[string]string{"memory.available": "1Gi"}, false, 900 << 20, domain.ConditionFalse, "kubelet has sufficient memory available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := kubelettest.New("worker-a")
			k.SetEvictionHard(tt.evictionHard)
			k.ServeConfigz(tt.configz)
			k.SetMemoryAvailable(tt.available)
			r := newRig(t, k, serve(t, k), nil)
			hb := r.sink.lastHeartbeat(t)
			var got *domain.ReportedCondition
			for i, c := range hb.Reported {
				if c.Type == domain.ConditionMemoryPressure {
					got = &hb.Reported[i]
				}
			}
			if got == nil || got.Status != tt.want || got.Message != tt.message {
				t.Errorf("MemoryPressure %+v, want %s: %s", got, tt.want, tt.message)
			}
		})
	}
}

func TestPollerMemoryPressureComesAndGoes(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)
	status := func() domain.ConditionStatus {
		for _, c := range r.sink.lastHeartbeat(t).Reported {
			if c.Type == domain.ConditionMemoryPressure {
				return c.Status
			}
		}
		return ""
	}
	k.SetMemoryAvailable(50 << 20)
	r.pass(10 * time.Second)
	if s := status(); s != domain.ConditionTrue {
		t.Errorf("with 50Mi free: MemoryPressure %s, want True", s)
	}
	k.SetMemoryAvailable(8 << 30)
	r.pass(10 * time.Second)
	if s := status(); s != domain.ConditionFalse {
		t.Errorf("with 8Gi free: MemoryPressure %s, want False", s)
	}
}

func TestPollerKubeletThatGoesAwayAndComesBack(t *testing.T) {
	k := kubelettest.New("worker-a")
	srv := httptest.NewServer(k)
	addr := srv.Listener.Addr().String()
	r := newRig(t, k, srv, nil)
	srv.Close()

	r.pass(10 * time.Second)
	_, hbs, fails, _ := r.sink.snapshot()
	if len(hbs) != 1 {
		t.Errorf("%d heartbeats, want only the first: an unreachable kubelet sends none", len(hbs))
	}
	if len(fails) != 1 || fails[0].Reason != ReasonConnectionRefused || !strings.Contains(fails[0].Message, "/healthz: connection refused") {
		t.Fatalf("failures %+v, want one ConnectionRefused on /healthz", fails)
	}
	// Backoff on herd's clock: 10s, 20s, 40s, 80s, then the 2m cap.
	var waits []time.Duration
	for range 5 {
		s := r.poller.Status()
		wait := s.Next.Sub(r.clock.Now())
		waits = append(waits, wait)
		r.pass(wait)
	}
	if diff := cmp.Diff([]time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 120 * time.Second}, waits); diff != "" {
		t.Errorf("waits between polls of a failing kubelet (-want +got):\n%s", diff)
	}
	if _, _, fails, _ := r.sink.snapshot(); len(fails) != 1 {
		t.Errorf("the same failure was recorded %d times, want once", len(fails))
	}
	if up := testutil.ToFloat64(r.metrics.up.WithLabelValues("worker-a")); up != 0 {
		t.Errorf("herd_kubelet_up %v, want 0", up)
	}
	if n := testutil.ToFloat64(r.metrics.errors.WithLabelValues("worker-a", endpointHealthz, ReasonConnectionRefused)); n != 6 {
		t.Errorf("%v connection errors counted, want 6", n)
	}

	// The kubelet comes back at the same address: the next poll reaches
	// it, heartbeats resume and the pods are read again at once.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	back := &httptest.Server{Listener: ln, Config: &http.Server{Handler: k}}
	back.Start()
	t.Cleanup(back.Close)
	pods := k.Requests("/pods")
	_, _, _, reported := r.sink.snapshot()
	r.pass(r.poller.Status().Next.Sub(r.clock.Now()))
	_, hbs, _, again := r.sink.snapshot()
	if len(hbs) != 2 || k.Requests("/pods") != pods+1 {
		t.Errorf("after the kubelet came back: %d heartbeats (want 2), /pods read %d more times (want 1)", len(hbs), k.Requests("/pods")-pods)
	}
	// The same pods, reported again: herd marked them not ready while
	// it heard nothing, and the kubelet's word must stand once it does.
	if len(again) != len(reported)+1 || !reflect.DeepEqual(again[len(again)-1], reported[len(reported)-1]) {
		t.Errorf("after the kubelet came back: %d pod reports (want %d), the last the same list as before the outage", len(again), len(reported)+1)
	}
	if s := r.poller.Status(); s.Next.Sub(r.clock.Now()) != 10*time.Second || s.Failures != 0 {
		t.Errorf("after recovery: next poll in %s with %d failures, want 10s and 0", s.Next.Sub(r.clock.Now()), s.Failures)
	}
}

// TestPollerReportsThePodsAgainWhenALateHeartbeatTurnsTheNodeReady: the
// kubelet answered all along, but herd marked the node silent (its
// heartbeats recorded late) and its pods not ready; the heartbeat that
// turns it Ready again brings the same pods once more, and the next one
// does not.
func TestPollerReportsThePodsAgainWhenALateHeartbeatTurnsTheNodeReady(t *testing.T) {
	k := kubelettest.New("worker-a")
	k.SetPods(kubelettest.RunningPod("shop", "web"))
	r := newRig(t, k, serve(t, k), nil)
	_, _, _, before := r.sink.snapshot()
	if len(before) != 1 {
		t.Fatalf("%d pod reports at the start, want 1", len(before))
	}
	r.sink.mu.Lock()
	r.sink.becameReady = true
	r.sink.mu.Unlock()
	r.pass(10 * time.Second)
	_, _, _, after := r.sink.snapshot()
	if len(after) != 2 || !reflect.DeepEqual(after[1], before[0]) {
		t.Fatalf("%d pod reports after the heartbeat that turned the node Ready, want the same list again", len(after))
	}
	r.pass(10 * time.Second)
	if _, _, _, again := r.sink.snapshot(); len(again) != 2 {
		t.Errorf("%d pod reports after a plain heartbeat, want none more", len(again))
	}
}

func TestPollerTLS(t *testing.T) {
	k := kubelettest.New("worker-a")
	srv := quietTLS(t, k, nil)
	plain := serve(t, k)
	caFile := serverCA(t, srv)
	tests := []struct {
		name   string
		change func(*domain.KubeletTarget)
		reason string
		says   string
	}{
		{"the kubelet's CA bundle", func(tg *domain.KubeletTarget) { tg.CAFile = caFile }, "", ""},
		{"the CA bundle inline", func(tg *domain.KubeletTarget) { tg.CAData = string(newCA(t).pem) }, ReasonTLSError, "signed by an authority herd does not trust"},
		{"no CA bundle", nil, ReasonTLSError, "give the target the CA bundle that signs it"},
		{"no CA bundle but a lab switch", func(tg *domain.KubeletTarget) { tg.InsecureSkipVerify = true }, "", ""},
		{"a CA file that is not there", func(tg *domain.KubeletTarget) { tg.CAFile = filepath.Join(t.TempDir(), "nope.pem") }, ReasonConfigError, "cannot read the CA bundle"},
		{"https to the read-only port", func(tg *domain.KubeletTarget) {
			tg.URL = strings.Replace(plain.URL, "http:", "https:", 1)
		}, ReasonTLSError, "does not speak TLS on this port: use an http:// URL"},
		{"http to the TLS port", func(tg *domain.KubeletTarget) {
			tg.URL = strings.Replace(srv.URL, "https:", "http:", 1)
		}, ReasonHTTPError, "answered 400 Bad Request; it said: Client sent an HTTP request to an HTTPS server."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, k, srv, func(tg *domain.KubeletTarget) {
				tg.URL = srv.URL
				if tt.change != nil {
					tt.change(tg)
				}
			})
			_, hbs, fails, _ := r.sink.snapshot()
			if tt.reason == "" {
				if len(hbs) != 1 || len(fails) != 0 {
					t.Errorf("%d heartbeats and failures %+v, want one heartbeat", len(hbs), fails)
				}
				return
			}
			if len(hbs) != 0 || len(fails) != 1 || fails[0].Reason != tt.reason || !strings.Contains(fails[0].Message, tt.says) {
				t.Errorf("%d heartbeats, failures %+v; want a %s saying %q", len(hbs), fails, tt.reason, tt.says)
			}
		})
	}
}

func TestPollerClientCertificates(t *testing.T) {
	ca := newCA(t)
	dir := t.TempDir()
	certFile, keyFile := ca.clientCert(t, dir, "herd")
	k := kubelettest.New("worker-a")
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	srv := quietTLS(t, k, &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool})
	caFile := serverCA(t, srv)

	good := newRig(t, k, srv, func(tg *domain.KubeletTarget) {
		tg.CAFile, tg.ClientCertFile, tg.ClientKeyFile = caFile, certFile, keyFile
	})
	if _, hbs, fails, _ := good.sink.snapshot(); len(hbs) != 1 || len(fails) != 0 {
		t.Errorf("with herd's certificate: %d heartbeats, failures %+v", len(hbs), fails)
	}
	bad := newRig(t, k, srv, func(tg *domain.KubeletTarget) { tg.CAFile = caFile })
	_, hbs, fails, _ := bad.sink.snapshot()
	if len(hbs) != 0 || len(fails) != 1 || fails[0].Reason != ReasonTLSError ||
		!strings.Contains(fails[0].Message, "it does not accept herd's no credentials") {
		t.Errorf("without a certificate: %d heartbeats, failures %+v; want a TLSError naming the missing credentials", len(hbs), fails)
	}
	broken := filepath.Join(dir, "broken.pem")
	writeFile(t, broken, "not a certificate")
	cfgErr := newRig(t, k, srv, func(tg *domain.KubeletTarget) {
		tg.CAFile, tg.ClientCertFile, tg.ClientKeyFile = caFile, broken, keyFile
	})
	if _, _, fails, _ := cfgErr.sink.snapshot(); len(fails) != 1 || fails[0].Reason != ReasonConfigError || !strings.Contains(fails[0].Message, broken) {
		t.Errorf("with a broken certificate file: failures %+v, want a ConfigError naming it", fails)
	}
}

func TestPollerCredentials(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	writeFile(t, token, "s3cret\n")
	wrong := filepath.Join(dir, "wrong")
	writeFile(t, wrong, "guess")
	tests := []struct {
		name    string
		token   string
		prepare func(*kubelettest.Kubelet)
		reason  string
		says    []string
	}{
		{"the right token", token, nil, "", nil},
		{"the wrong token", wrong, nil, ReasonUnauthorized, []string{"401 Unauthorized; herd sent the bearer token in " + wrong}},
		{"no token", "", nil, ReasonUnauthorized, []string{"herd sent no credentials"}},
		{"a token file that is gone", filepath.Join(dir, "gone"), nil, ReasonConfigError, []string{"cannot read the bearer token", "gone"}},
		{"allowed /healthz but not /stats", token, func(k *kubelettest.Kubelet) {
			k.Respond("/stats/summary", http.StatusForbidden, "Forbidden (user=system:serviceaccount:herd:poller, verb=get, resource=nodes, subresource=stats)")
		}, ReasonForbidden, []string{
			"forbids /stats/summary (403 Forbidden): grant it get on nodes/stats",
			"it said: Forbidden (user=system:serviceaccount:herd:poller, verb=get, resource=nodes, subresource=stats)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := kubelettest.New("worker-a")
			k.RequireToken("s3cret")
			if tt.prepare != nil {
				tt.prepare(k)
			}
			r := newRig(t, k, serve(t, k), func(tg *domain.KubeletTarget) { tg.BearerTokenFile = tt.token })
			_, hbs, fails, _ := r.sink.snapshot()
			if tt.reason == "" {
				if len(hbs) != 1 || len(fails) != 0 {
					t.Errorf("%d heartbeats and failures %+v, want one heartbeat", len(hbs), fails)
				}
				return
			}
			if len(hbs) != 0 || len(fails) != 1 || fails[0].Reason != tt.reason {
				t.Fatalf("%d heartbeats, failures %+v; want one %s", len(hbs), fails, tt.reason)
			}
			for _, s := range tt.says {
				if !strings.Contains(fails[0].Message, s) {
					t.Errorf("message %q does not say %q", fails[0].Message, s)
				}
			}
		})
	}
}

func TestPollerBrokenSummaryIsCountedNotAFalseCondition(t *testing.T) {
	k := kubelettest.New("worker-a")
	k.SetMemoryAvailable(50 << 20)
	r := newRig(t, k, serve(t, k), nil)
	if hb := r.sink.lastHeartbeat(t); len(hb.Reported) != 5 || hb.Reported[1].Status != domain.ConditionTrue {
		t.Fatalf("first heartbeat %+v, want MemoryPressure True", hb.Reported)
	}
	k.Respond("/stats/summary", http.StatusOK, `{"node":{"nodeName":"worker-a","memory":{"availableBytes":`)
	r.pass(10 * time.Second)
	hb := r.sink.lastHeartbeat(t)
	want := domain.RecordHeartbeat{Reported: []domain.ReportedCondition{readyCondition()}}
	if diff := cmp.Diff(want, hb); diff != "" {
		t.Errorf("heartbeat with a truncated summary (-want +got):\n%s", diff)
	}
	if _, _, fails, _ := r.sink.snapshot(); len(fails) != 0 {
		t.Errorf("failures %+v: a summary herd cannot read is no reason to stop heartbeats", fails)
	}
	if n := testutil.ToFloat64(r.metrics.errors.WithLabelValues("worker-a", endpointSummary, ReasonMalformed)); n != 1 {
		t.Errorf("%v malformed summaries counted, want 1", n)
	}
	// Broken pods, settings and metrics cost what they said, nothing more.
	for _, ep := range []string{"/pods", "/configz", "/metrics/probes", "/metrics/resource", "/metrics/cadvisor", "/metrics"} {
		k.Respond(ep, http.StatusOK, "{\"items\": [")
	}
	r.pass(10 * time.Second)
	r.pass(10 * time.Second)
	for _, ep := range []string{"/pods", "/configz", "/metrics/probes", "/metrics/resource", "/metrics/cadvisor", "/metrics"} {
		if n := testutil.ToFloat64(r.metrics.errors.WithLabelValues("worker-a", ep, ReasonMalformed)); n != 1 {
			t.Errorf("%s: %v malformed answers counted, want 1", ep, n)
		}
	}
	if _, hbs, fails, _ := r.sink.snapshot(); len(hbs) != 4 || len(fails) != 0 {
		t.Errorf("%d heartbeats and failures %+v, want 4 and none", len(hbs), fails)
	}
}

func TestSlowKubeletDoesNotDelayAnother(t *testing.T) {
	slowK, fastK := kubelettest.New("slow"), kubelettest.New("fast")
	release := slowK.Hold()
	defer release()
	slowSrv, fastSrv := serve(t, slowK), serve(t, fastK)

	// Both pollers share one clock, as in herd.
	fast := newRig(t, fastK, fastSrv, nil)
	slow := &rig{t: t, clock: fast.clock, kubelet: slowK, server: slowSrv, sink: &recorder{}, done: make(chan struct{})}
	slow.poller = newPoller(domain.KubeletTarget{Name: "slow", URL: slowSrv.URL, Source: domain.SourceConfig},
		testConfig(), slow.sink, fast.clock, fast.poller.log, fast.metrics, func() float64 { return 0.5 })
	go func() {
		defer close(slow.done)
		slow.poller.run(t.Context())
	}()
	t.Cleanup(func() { <-slow.done }) // t.Context ends just before cleanups run
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return slowK.Requests("/healthz") == 1 }, "the slow kubelet was never asked")

	// The slow kubelet hangs; the fast one is polled on time regardless.
	fast.clock.Step(5 * time.Second)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		_, _, fails, _ := slow.sink.snapshot()
		return len(fails) == 1
	}, "the hung request did not time out on herd's clock")
	_, _, fails, _ := slow.sink.snapshot()
	if fails[0].Reason != ReasonTimeout || !strings.Contains(fails[0].Message, "--kubelet-timeout") {
		t.Errorf("failure %+v, want a Timeout naming --kubelet-timeout", fails[0])
	}
	fast.pass(5 * time.Second)
	if _, hbs, _, _ := fast.sink.snapshot(); len(hbs) != 2 {
		t.Errorf("the fast kubelet got %d heartbeats in 10s, want 2", len(hbs))
	}
	release()
}

func TestPollerNoticesAKubeletRestart(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)
	k.SetStarted(t0.Add(-time.Minute))
	r.pass(10 * time.Second)
	r.pass(10 * time.Second)
	regs, _, _, _ := r.sink.snapshot()
	if len(regs) != 2 || regs[0].restarted || !regs[1].restarted || regs[0].reg.Name != regs[1].reg.Name {
		t.Errorf("registrations %+v, want the first and one restart", regs)
	}
}

func TestPollerRegistersADeletedNodeAgain(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)
	r.sink.mu.Lock()
	r.sink.heartbeatErr = errors.Join(errors.New(`node "worker-a"`), domain.ErrNotFound)
	r.sink.mu.Unlock()
	r.pass(10 * time.Second)
	r.pass(10 * time.Second)
	regs, hbs, _, _ := r.sink.snapshot()
	if len(regs) != 2 || regs[1].restarted || len(hbs) != 2 {
		t.Errorf("%d registrations (want 2, the second not a restart), %d heartbeats (want 2)", len(regs), len(hbs))
	}
}

func TestPollerSyncLoop(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)

	// The kubelet's /healthz includes its sync loop: both fail together.
	k.SetUnhealthy("syncloop")
	r.pass(10 * time.Second)
	_, hbs, fails, _ := r.sink.snapshot()
	if len(hbs) != 1 || len(fails) != 1 || fails[0].Reason != ReasonUnhealthy || !strings.Contains(fails[0].Message, "[-]syncloop failed") {
		t.Fatalf("%d heartbeats, failures %+v; want an Unhealthy naming the sync loop", len(hbs), fails)
	}
	k.SetUnhealthy("")

	// A sync loop the slow poll finds failing stops heartbeats too, until
	// it passes again.
	r.pass(r.poller.Status().Next.Sub(r.clock.Now()))
	k.Respond("/healthz/syncloop", http.StatusInternalServerError, "sync Loop took longer than expected")
	r.pass(r.poller.Status().Next.Sub(r.clock.Now()))
	for range 3 {
		r.pass(r.poller.Status().Next.Sub(r.clock.Now()))
	}
	_, hbs, fails, _ = r.sink.snapshot()
	if len(fails) != 2 || fails[1].Reason != ReasonUnhealthy || !strings.Contains(fails[1].Message, "/healthz/syncloop") {
		t.Fatalf("failures %+v, want a second Unhealthy on /healthz/syncloop", fails)
	}
	before := len(hbs)
	k.Respond("/healthz/syncloop", 0, "")
	r.pass(r.poller.Status().Next.Sub(r.clock.Now()))
	if _, hbs, _, _ := r.sink.snapshot(); len(hbs) != before+1 {
		t.Errorf("heartbeats did not resume with the sync loop: %d, want %d", len(hbs), before+1)
	}
}

func TestPollerSurvivesAPanic(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)
	r.sink.mu.Lock()
	r.sink.panics = true
	r.sink.mu.Unlock()
	r.pass(10 * time.Second)
	r.pass(10 * time.Second)
	if _, hbs, _, _ := r.sink.snapshot(); len(hbs) != 2 {
		t.Errorf("%d heartbeats, want 2: the first and the one after the panic", len(hbs))
	}
	if n := testutil.ToFloat64(r.metrics.errors.WithLabelValues("worker-a", "poll", ReasonPanic)); n != 1 {
		t.Errorf("%v panics counted, want 1", n)
	}
}

func TestPollerRegistersWhenOnlyTheSlowEndpointsFail(t *testing.T) {
	k := kubelettest.New("worker-a")
	k.SetPods(kubelettest.RunningPod("shop", "web"))
	k.Respond("/pods", http.StatusForbidden, "Forbidden (user=herd, verb=get, resource=nodes, subresource=proxy)")
	k.Respond("/configz", http.StatusInternalServerError, "boom")
	r := newRig(t, k, serve(t, k), nil)
	regs, hbs, fails, pods := r.sink.snapshot()
	if len(regs) != 1 || len(hbs) != 1 || len(fails) != 0 || len(pods) != 0 {
		t.Fatalf("%d registrations, %d heartbeats, failures %+v, %d pod reports; want 1, 1, none, 0", len(regs), len(hbs), fails, len(pods))
	}
	if _, ok := regs[0].reg.Capacity["pods"]; ok {
		t.Errorf("capacity %v: without /configz herd does not know the pod limit", regs[0].reg.Capacity)
	}
	if n := testutil.ToFloat64(r.metrics.errors.WithLabelValues("worker-a", endpointPods, ReasonForbidden)); n != 1 {
		t.Errorf("%v forbidden /pods counted, want 1", n)
	}
	k.Respond("/pods", 0, "")
	r.pass(30 * time.Second)
	if _, _, _, pods := r.sink.snapshot(); len(pods) != 1 {
		t.Errorf("%d pod reports once /pods answers, want 1", len(pods))
	}
}
