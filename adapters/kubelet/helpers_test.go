package kubelet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/kubelet/kubelettest"
	"herd/domain"
	"herd/events/eventstest"
)

// t0 is where every test's clock starts.
var t0 = time.Date(2026, time.March, 1, 9, 0, 0, 0, time.UTC)

// recorder is a Sink that remembers what it was told.
type recorder struct {
	mu           sync.Mutex
	registered   []registration
	heartbeats   []domain.RecordHeartbeat
	failures     []domain.RecordScrapeFailure
	pods         [][]domain.ObservePod
	machines     []domain.ObserveMachine
	stopped      []string
	heartbeatErr error
	// becameReady is what the next RecordHeartbeat reports: that it
	// turned the node Ready.
	becameReady bool
	// panics makes the next RecordHeartbeat panic.
	panics bool
}

type registration struct {
	reg       domain.Registration
	restarted bool
}

var _ Sink = (*recorder)(nil)

func (r *recorder) RegisterNode(_ context.Context, reg domain.Registration, restarted bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.registered = append(r.registered, registration{reg, restarted})
	return nil
}

func (r *recorder) RecordHeartbeat(_ context.Context, _ string, hb domain.RecordHeartbeat) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.panics {
		r.panics = false
		panic("a bug met by an odd answer")
	}
	if r.heartbeatErr != nil {
		err := r.heartbeatErr
		r.heartbeatErr = nil
		return false, err
	}
	r.heartbeats = append(r.heartbeats, hb)
	became := r.becameReady
	r.becameReady = false
	return became, nil
}

func (r *recorder) RecordScrapeFailure(_ context.Context, _ string, f domain.RecordScrapeFailure) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, f)
	return nil
}

func (r *recorder) ObservePods(_ context.Context, _ string, pods []domain.ObservePod) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pods = append(r.pods, pods)
	return nil
}

func (r *recorder) ObserveMachine(_ context.Context, _ string, m domain.ObserveMachine) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.machines = append(r.machines, m)
	return nil
}

// observedMachines returns a copy of the machines the recorder was told.
func (r *recorder) observedMachines() []domain.ObserveMachine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]domain.ObserveMachine(nil), r.machines...)
}

func (r *recorder) StopObserving(_ context.Context, node string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = append(r.stopped, node)
	return nil
}

// snapshot returns copies of what the recorder holds.
func (r *recorder) snapshot() (regs []registration, hbs []domain.RecordHeartbeat, fails []domain.RecordScrapeFailure, pods [][]domain.ObservePod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]registration(nil), r.registered...), append([]domain.RecordHeartbeat(nil), r.heartbeats...),
		append([]domain.RecordScrapeFailure(nil), r.failures...), append([][]domain.ObservePod(nil), r.pods...)
}

func (r *recorder) lastHeartbeat(t *testing.T) domain.RecordHeartbeat {
	t.Helper()
	_, hbs, _, _ := r.snapshot()
	if len(hbs) == 0 {
		t.Fatal("no heartbeat recorded")
	}
	return hbs[len(hbs)-1]
}

// rig is one poller against one simulated kubelet, on a fake clock.
type rig struct {
	t       *testing.T
	clock   *clocktesting.FakeClock
	kubelet *kubelettest.Kubelet
	server  *httptest.Server
	sink    *recorder
	poller  *poller
	reg     *prometheus.Registry
	metrics *Metrics
	done    chan struct{}
	cancel  context.CancelFunc
	// slowAligned is true once slowPoll moved the clock to a heartbeat
	// just after a slow poll.
	slowAligned bool
}

// testConfig is the default configuration.
func testConfig() Config { return DefaultConfig() }

// newRig serves a simulated kubelet on loopback and starts a poller on it
// with target changed by change (nil for a plain http target). It waits
// until the poller's first poll is done.
func newRig(t *testing.T, k *kubelettest.Kubelet, srv *httptest.Server, change func(*domain.KubeletTarget)) *rig {
	t.Helper()
	target := domain.KubeletTarget{Name: "worker-a", URL: srv.URL, Source: domain.SourceConfig}
	if change != nil {
		change(&target)
	}
	reg := prometheus.NewRegistry()
	r := &rig{t: t, clock: clocktesting.NewFakeClock(t0), kubelet: k, server: srv, sink: &recorder{}, reg: reg, metrics: NewMetrics(reg), done: make(chan struct{})}
	r.poller = newPoller(target, testConfig(), r.sink, r.clock, zap.NewNop(), r.metrics, func() float64 { return 0.5 })
	ctx, cancel := context.WithCancel(t.Context())
	r.cancel = cancel
	go func() {
		defer close(r.done)
		r.poller.run(ctx)
	}()
	t.Cleanup(r.stop)
	r.waitIdle()
	return r
}

func (r *rig) stop() {
	r.cancel()
	<-r.done
}

// waitIdle waits until the poller waits for a time ahead of the clock.
func (r *rig) waitIdle() {
	r.t.Helper()
	eventstest.Eventually(r.t, eventstest.WaitFor, func() bool {
		s := r.poller.Status()
		return s.Waiting && s.Next.After(r.clock.Now())
	}, "the poller did not settle: %+v", r.poller.Status())
}

// pass moves the clock by d once the poller waits, and waits for what
// that sets off.
func (r *rig) pass(d time.Duration) {
	r.t.Helper()
	r.waitIdle()
	r.clock.Step(d)
	r.waitIdle()
}

// pki is a CA with a key, for client certificates.
type pki struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(t *testing.T) pki {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "herd-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return pki{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// clientCert issues a client certificate for cn and writes it and its key
// to files in dir.
func (ca pki) clientCert(t *testing.T, dir, cn string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn, Organization: []string{"system:masters"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, cn+".pem"), filepath.Join(dir, cn+"-key.pem")
	writeFile(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	writeFile(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})))
	return certFile, keyFile
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// serverCA writes the PEM of a TLS test server's certificate to a file.
func serverCA(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubelet-ca.pem")
	writeFile(t, path, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	return path
}

func podList(pods ...corev1.Pod) corev1.PodList { return corev1.PodList{Items: pods} }
