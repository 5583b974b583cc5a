package picosim

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// kubelet is the board's port-10250 endpoint: /healthz answers "ok",
// /metrics an empty 200, anything else 404.
type kubelet struct {
	addr string
	p    *Pico

	mu  sync.Mutex
	srv *http.Server
}

func listenKubelet(addr string, p *Pico) (*kubelet, error) {
	k := &kubelet{p: p}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("picosim: kubelet endpoint %s: %w", addr, err)
	}
	k.addr = ln.Addr().String()
	k.serve(ln)
	return k, nil
}

func (k *kubelet) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(k.handle), ReadHeaderTimeout: 5 * time.Second}
	k.mu.Lock()
	k.srv = srv
	k.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

func (k *kubelet) handle(w http.ResponseWriter, r *http.Request) {
	if k.p.hanging() {
		// A board whose network stack wedged: the connection is
		// accepted and nothing ever comes back.
		<-r.Context().Done()
		return
	}
	switch r.URL.Path {
	case "/healthz":
		_, _ = w.Write([]byte("ok"))
	case "/metrics":
	default:
		http.NotFound(w, r)
	}
}

func (k *kubelet) stop() error {
	k.mu.Lock()
	srv := k.srv
	k.srv = nil
	k.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// StopKubelet stops the board's endpoint: probes find the port closed.
func (p *Pico) StopKubelet() error {
	if p.kubelet == nil {
		return errors.New("picosim: the board serves no kubelet endpoint")
	}
	return p.kubelet.stop()
}

// StartKubelet serves the board's endpoint again on the same address.
func (p *Pico) StartKubelet() error {
	if p.kubelet == nil {
		return errors.New("picosim: the board serves no kubelet endpoint")
	}
	if err := p.kubelet.stop(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", p.kubelet.addr)
	if err != nil {
		return fmt.Errorf("picosim: kubelet endpoint %s: %w", p.kubelet.addr, err)
	}
	p.kubelet.serve(ln)
	return nil
}

// SetHanging makes the endpoint accept connections and never answer (true)
// or answer again (false).
func (p *Pico) SetHanging(h bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hangs = h
}

func (p *Pico) hanging() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hangs
}

// KubeletAddr is where the board's endpoint listens, "" when it serves
// none.
func (p *Pico) KubeletAddr() string {
	if p.kubelet == nil {
		return ""
	}
	return p.kubelet.addr
}
