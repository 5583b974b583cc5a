package picosim

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Config describes one board.
type Config struct {
	// Name is the node name the firmware registers, such as pico-01.
	Name string
	// Server is herd's base URL, plain http: the firmware has no TLS.
	Server string
	// SourceIP is the local address the board's connections come from;
	// empty lets the system choose. Tests use other loopback addresses
	// (127.0.0.3) to stand for other boards.
	SourceIP string
	// InternalIP is the address the board reports; defaults to the host
	// its kubelet endpoint listens on, else SourceIP, else 127.0.0.1.
	InternalIP string
	// KubeletListen, when set, is where the board serves its port-10250
	// endpoint ("127.0.0.1:0" in tests); the port it gets is the one it
	// advertises. Empty advertises KubeletPort and serves nothing.
	KubeletListen string
	// MachineID and SystemUUID identify the board; derived from Name when
	// empty.
	MachineID, SystemUUID string
	// Clock is the board's own clock of time since power-on, for its
	// "now" once synced; the real clock when nil.
	Clock clock.PassiveClock
	// Timeout bounds one request; 10 s when zero.
	Timeout time.Duration
	// NoHistory keeps no exchanges for History: a load generator's
	// thousands of boards, each reporting for minutes, would otherwise
	// keep every request they ever sent.
	NoHistory bool
}

// Exchange is one request the board sent and what came back.
type Exchange struct {
	// Request is the request exactly as written on the wire.
	Request []byte
	// Status is the response's status code, 0 when none came.
	Status int
	// Body is the response body.
	Body []byte
	// Err is the transport error, if any.
	Err error
}

// Pico is one simulated board. Its methods are safe for concurrent use.
type Pico struct {
	cfg  Config
	host string // host:port of herd

	mu      sync.Mutex
	boots   int
	synced  bool
	wall    time.Time // the Date header's time at sync
	mono    time.Time // the board's clock at sync
	history []Exchange
	config  map[string]string
	kubelet *kubelet
	hangs   bool
}

// New returns a board, listening on KubeletListen when set. It has not
// booted yet: Boot is its power-on.
func New(cfg Config) (*Pico, error) {
	u, err := url.Parse(cfg.Server)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("picosim: server %q: want a plain http:// URL, as the firmware speaks no TLS", cfg.Server)
	}
	if cfg.Name == "" {
		return nil, errors.New("picosim: a board needs a name")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MachineID == "" {
		cfg.MachineID = "e6616407" + hexName(cfg.Name)
	}
	if cfg.SystemUUID == "" {
		cfg.SystemUUID = "rp2040-" + cfg.Name
	}
	p := &Pico{cfg: cfg, host: u.Host}
	if cfg.KubeletListen != "" {
		k, err := listenKubelet(cfg.KubeletListen, p)
		if err != nil {
			return nil, err
		}
		p.kubelet = k
		if p.cfg.InternalIP == "" {
			p.cfg.InternalIP, _, _ = net.SplitHostPort(k.addr)
		}
	}
	if p.cfg.InternalIP == "" {
		p.cfg.InternalIP = cfg.SourceIP
	}
	if p.cfg.InternalIP == "" {
		p.cfg.InternalIP = "127.0.0.1"
	}
	return p, nil
}

// hexName is a stable hex rendering of a name, for derived IDs.
func hexName(name string) string {
	var h uint32 = 2166136261
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return fmt.Sprintf("%08x", h)
}

// Name is the board's node name.
func (p *Pico) Name() string { return p.cfg.Name }

// InternalIP is the address the board reports.
func (p *Pico) InternalIP() string { return p.cfg.InternalIP }

// bootID changes with every power-on, as the firmware's does.
func (p *Pico) bootID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%s-boot-%d", p.cfg.MachineID, p.boots)
}

// kubeletPort is the port the board advertises.
func (p *Pico) kubeletPort() int {
	if p.kubelet != nil {
		_, port, _ := net.SplitHostPort(p.kubelet.addr)
		var n int
		_, _ = fmt.Sscan(port, &n)
		return n
	}
	return KubeletPort
}

// now is the board's idea of the time: 1970 until a Date header set it.
func (p *Pico) now() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.synced {
		return Unsynced
	}
	return p.wall.Add(p.cfg.Clock.Since(p.mono)).UTC().Format(time.RFC3339)
}

// BootResult says how a power-on went.
type BootResult struct {
	// Registered is true when the POST was accepted (201).
	Registered bool
	// PostStatus is the POST's status code, 0 when the request failed.
	PostStatus int
	// PatchStatus is the fallback PATCH's status code, 0 when there was
	// none or it failed.
	PatchStatus int
}

// Boot powers the board on: a new boot ID, an unsynced clock, the POST of
// its Node, and on any failure (409 included) the status PATCH.
func (p *Pico) Boot() (BootResult, error) {
	p.mu.Lock()
	p.boots++
	p.synced = false
	p.mu.Unlock()
	body := p.nodeBody(p.now())
	post := p.send("POST", "/api/v1/nodes", "application/json", body)
	res := BootResult{PostStatus: post.Status}
	if post.Err == nil && post.Status >= 200 && post.Status < 300 {
		res.Registered = true
		return res, nil
	}
	patch := p.send("PATCH", "/api/v1/nodes/"+p.cfg.Name+"/status", "application/strategic-merge-patch+json", p.patchBody(p.now()))
	res.PatchStatus = patch.Status
	return res, patch.failure()
}

// Report sends one status PATCH, as the firmware does every 10 s, and
// returns its status code.
func (p *Pico) Report() (int, error) {
	x := p.send("PATCH", "/api/v1/nodes/"+p.cfg.Name+"/status", "application/strategic-merge-patch+json", p.patchBody(p.now()))
	return x.Status, x.failure()
}

// failure is the exchange as an error: a transport error, or a status
// other than 2xx with herd's message.
func (x Exchange) failure() error {
	switch {
	case x.Err != nil:
		return x.Err
	case x.Status < 200 || x.Status > 299:
		return fmt.Errorf("HTTP %d: %s", x.Status, strings.TrimSpace(string(x.Body)))
	}
	return nil
}

// History returns every exchange so far, oldest first (none with
// NoHistory).
func (p *Pico) History() []Exchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Exchange(nil), p.history...)
}

// Close stops the board's endpoint.
func (p *Pico) Close() error {
	if p.kubelet == nil {
		return nil
	}
	return p.kubelet.stop()
}
