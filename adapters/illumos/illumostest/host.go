package illumostest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"herd/adapters/illumos"
)

// Host is a simulated illumos host: a Runner that keeps the state the real
// commands would change and answers as they would. It starts with one ZFS
// pool, "rpool" (mounted at /rpool), and one physical link, "e1000g0".
type Host struct {
	mu       sync.Mutex
	zones    map[string]*zone
	vnics    map[string]string // VNIC → the link it is over
	stubs    map[string]bool
	links    []string
	datasets map[string]map[string]string // dataset → properties set on it
	modes    map[string]string            // directory → mode set by chmod
	ifs      map[string]bool
	addrs    map[string]string // address object → address
	commands []illumos.Command
	failures []failure
	hangs    []*Hang
	// stubborn zones take `zoneadm shutdown` and never finish it.
	stubborn map[string]bool
	nextID   int
	uuids    int
}

type zone struct {
	name, state, brand, path, uuid string
	physical                       []string
	id                             int
}

// failure makes the next command that starts with prefix fail.
type failure struct {
	prefix, stderr string
}

var _ illumos.Runner = (*Host)(nil)

// NewHost returns a host with the pool rpool and the link e1000g0.
func NewHost() *Host {
	return &Host{
		zones: map[string]*zone{}, vnics: map[string]string{}, stubs: map[string]bool{},
		links:    []string{"e1000g0"},
		datasets: map[string]map[string]string{"rpool": {"mountpoint": "/rpool"}},
		modes:    map[string]string{}, ifs: map[string]bool{"lo0": true},
		addrs:    map[string]string{"lo0/v4": "127.0.0.1/8"},
		stubborn: map[string]bool{},
	}
}

// Hang is a command that does not return until its caller gives up, as
// one running when herd goes down never does.
type Hang struct {
	prefix  string
	reached chan struct{}
}

// Reached is closed once the command has started and hangs.
func (h *Hang) Reached() <-chan struct{} { return h.reached }

// HangNext makes the next command whose rendering starts with prefix hang
// until its context ends, then fail with the context's error, having
// changed nothing — except an install, which leaves its zone incomplete,
// as an interrupted `zoneadm install` does.
func (h *Host) HangNext(prefix string) *Hang {
	h.mu.Lock()
	defer h.mu.Unlock()
	hg := &Hang{prefix: prefix, reached: make(chan struct{})}
	h.hangs = append(h.hangs, hg)
	return hg
}

// IgnoreShutdown makes a zone take `zoneadm shutdown` and stay
// shutting_down for ever, as a zone whose init does not stop; only a halt
// takes it down.
func (h *Host) IgnoreShutdown(zone string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stubborn[zone] = true
}

// FailNext makes the next command whose rendering starts with prefix fail
// with exit status 1 and stderr, as a crash or a host error would. The
// command changes nothing — except an install, which leaves its zone
// incomplete, as an interrupted `zoneadm install` does.
func (h *Host) FailNext(prefix, stderr string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures = append(h.failures, failure{prefix: prefix, stderr: stderr})
}

// Commands returns every command run so far.
func (h *Host) Commands() []illumos.Command {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.commands)
}

// Forget clears the record of commands, so that a test can look at what
// one call did.
func (h *Host) Forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.commands = nil
}

// Transcript renders the commands run so far, one per line, with what a
// command read on standard input as a here-document.
func (h *Host) Transcript() string {
	var b strings.Builder
	for _, c := range h.Commands() {
		b.WriteString(c.String())
		if c.Stdin != "" {
			b.WriteString(" <<EOF\n" + c.Stdin + "EOF")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Run implements illumos.Runner.
func (h *Host) Run(ctx context.Context, c illumos.Command) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	rendered := c.String()
	for i, hg := range h.hangs {
		if strings.HasPrefix(rendered, hg.prefix) {
			h.hangs = slices.Delete(h.hangs, i, i+1)
			h.commands = append(h.commands, c)
			h.interrupt(c)
			h.mu.Unlock()
			close(hg.reached)
			<-ctx.Done()
			return nil, ctx.Err()
		}
	}
	defer h.mu.Unlock()
	h.commands = append(h.commands, c)
	for i, f := range h.failures {
		if strings.HasPrefix(rendered, f.prefix) {
			h.failures = slices.Delete(h.failures, i, i+1)
			h.interrupt(c)
			return nil, &illumos.ExitError{Command: c, Code: 1, Stderr: f.stderr}
		}
	}
	var (
		out string
		err error
	)
	switch c.Name {
	case "zoneadm":
		out, err = h.zoneadm(c.Args)
	case "zonecfg":
		out, err = h.zonecfg(c.Args, c.Stdin)
	case "dladm":
		out, err = h.dladm(c.Args)
	case "ipadm":
		out, err = h.ipadm(c.Args)
	case "zfs":
		out, err = h.zfs(c.Args)
	case "chmod":
		out, err = h.chmod(c.Args)
	default:
		err = fmt.Errorf("%s: command not found", c.Name)
	}
	if err != nil {
		return nil, &illumos.ExitError{Command: c, Code: 1, Stderr: err.Error()}
	}
	return []byte(out), nil
}

// interrupt leaves what a command cut short leaves: an install, its zone
// incomplete.
func (h *Host) interrupt(c illumos.Command) {
	if len(c.Args) >= 3 && c.Name == "zoneadm" && c.Args[2] == "install" {
		if z := h.zones[c.Args[1]]; z != nil && z.state == "configured" {
			z.state = "incomplete"
		}
	}
}

// ZoneState returns a zone's state, and false when there is no such zone.
func (h *Host) ZoneState(name string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	z, ok := h.zones[name]
	if !ok {
		return "", false
	}
	return z.state, true
}

// SetZoneState puts a zone in a state, as something outside herd would:
// an operator's halt, a crash inside the zone.
func (h *Host) SetZoneState(name, state string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if z, ok := h.zones[name]; ok {
		z.state = state
	}
}

// RemoveZone makes a zone vanish, as an operator's `zonecfg delete`
// would.
func (h *Host) RemoveZone(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.zones, name)
}

// ZoneNames lists the zones, sorted.
func (h *Host) ZoneNames() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return sortedKeys(h.zones)
}

// VNICs lists the VNICs, sorted.
func (h *Host) VNICs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return sortedKeys(h.vnics)
}

// Datasets lists the datasets, sorted.
func (h *Host) Datasets() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return sortedKeys(h.datasets)
}

// Addresses lists the global zone's address objects with their
// addresses, sorted, as "obj=address".
func (h *Host) Addresses() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for obj, a := range h.addrs {
		out = append(out, obj+"="+a)
	}
	slices.Sort(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
