package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// client is one style of node talking to herd; i is the node's index.
// Both are safe for concurrent use on different nodes.
type client interface {
	register(ctx context.Context, i int) outcome
	heartbeat(ctx context.Context, i int) outcome
}

// generator is one run's nodes and the connections they share.
type generator struct {
	cfg   Config
	names []string
	// register and beat are a node's turns: registering, and each
	// heartbeat after.
	register, beat turn
	// progress gets a line as each phase starts.
	progress io.Writer
}

// Run registers the nodes, warms up and measures the window, then reports.
// It refuses any server outside loopback (ErrRemote) unless
// cfg.AllowRemote, before sending anything to any. Progress lines go to
// progress. The run stops early when ctx ends, reporting what it measured
// so far.
func Run(ctx context.Context, cfg Config, progress io.Writer) (Report, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	if !cfg.AllowRemote {
		for _, server := range cfg.Servers {
			if err := CheckTarget(ctx, server); err != nil {
				return Report{}, err
			}
		}
	}
	g := &generator{cfg: cfg, names: make([]string, cfg.Nodes), progress: progress}
	width := max(5, len(strconv.Itoa(cfg.Nodes-1)))
	for i := range g.names {
		g.names[i] = fmt.Sprintf("%s%0*d", cfg.NamePrefix, width, i)
	}
	// Each server has every len(Servers)-th worker, and so as many
	// connections, rounded up.
	transport := newTransport(cfg, (cfg.Connections+len(cfg.Servers)-1)/len(cfg.Servers))
	defer transport.CloseIdleConnections()
	var c client
	var err error
	switch cfg.Style {
	case StyleKubelet:
		var k *kubeletClient
		k, err = newKubeletClient(cfg, g.names, &http.Client{Transport: transport, Timeout: cfg.Timeout})
		c = k
		if err == nil && cfg.Lease {
			l := newLeaseKubelet(k, cfg.StatusEvery)
			g.register, g.beat = l.register, l.beat
		}
	case StyleAgent:
		c, err = newAgentClient(cfg, g.names, transport)
	case StylePico:
		c, err = newPicoClient(cfg, g.names)
	}
	if err != nil {
		return Report{}, err
	}
	if g.register == nil {
		// A kubelet and herd agent try a registration herd shed until it
		// is admitted; the Pico firmware boots once, as a board does.
		g.register, g.beat = registering(c.register), one(c.heartbeat)
		if cfg.Style == StylePico {
			g.register = one(c.register)
		}
	}
	return g.run(ctx)
}

func (g *generator) run(ctx context.Context) (Report, error) {
	cfg := g.cfg
	r := Report{Style: cfg.Style, Encoding: cfg.Encoding, StatusUpdate: cfg.StatusUpdate, Server: cfg.Servers[0], Nodes: cfg.Nodes, Connections: cfg.Connections,
		IntervalSeconds: cfg.Interval.Seconds(), Idle: cfg.Idle, Lease: cfg.Lease}
	if len(cfg.Servers) > 1 {
		r.Servers = cfg.Servers
	}
	if cfg.Lease {
		r.StatusEverySeconds = cfg.StatusEvery.Seconds()
	}
	all := make([]int, cfg.Nodes)
	for i := range all {
		all[i] = i
	}

	g.say("registering %d %s nodes over %d connections", cfg.Nodes, cfg.Style, cfg.Connections)
	registering := time.Now()
	r.Register, r.KeptAlive = g.registerAll(ctx, all)
	if r.Register.Acknowledged == 0 {
		return r, fmt.Errorf("no node could register with %s: %s", strings.Join(cfg.Servers, ", "), r.Register.FirstError)
	}

	switch {
	case cfg.Warmup > 0:
		g.say("warming up for %s", cfg.Warmup)
		r.Warmup = g.drive(ctx, all, g.beat, stopAfter(cfg.Warmup), cfg.Interval)
	case cfg.Interval > 0:
		// Every node has kept to its schedule since it registered: a
		// burst of one heartbeat from each would be a load no fleet sends.
	default:
		g.say("warming up: one heartbeat from every node")
		r.Warmup = g.drive(ctx, all, g.beat, nil, 0)
	}

	watch, err := watchProcesses(cfg.ServerPIDs)
	if err != nil {
		return r, err
	}
	// loadgen's own share of the machine, where /proc tells it.
	self, _ := watchProcesses([]int{os.Getpid()})
	start := time.Now()
	switch {
	case cfg.Idle:
		g.say("idle for %s: nothing sent", cfg.Duration)
		select {
		case <-ctx.Done():
		case <-time.After(cfg.Duration):
		}
	case cfg.FallSilent > 0:
		silent := all[cfg.Nodes-cfg.FallSilent:]
		g.say("%d nodes fall silent, %d go on; waiting for herd to mark them (grace %s, at most %s)",
			len(silent), cfg.Nodes-len(silent), cfg.GracePeriod, cfg.FallSilentTimeout)
		stop := make(chan struct{})
		done := make(chan Silence, 1)
		go func() {
			defer close(stop)
			done <- g.watchSilence(ctx, silent, start, registering.Add(cfg.GracePeriod))
		}()
		r.Heartbeats = g.drive(ctx, all[:cfg.Nodes-len(silent)], g.beat, stop, cfg.Interval)
		s := <-done
		r.Silence = &s
	default:
		g.say("measuring for %s", cfg.Duration)
		r.Heartbeats = g.drive(ctx, all, g.beat, stopAfter(cfg.Duration), cfg.Interval)
	}
	r.WindowSeconds = time.Since(start).Seconds()
	var each []Process
	if r.ServerProcess, each, err = watch.stop(); err != nil {
		return r, err
	}
	if len(each) > 1 {
		r.ServerProcesses = each
	}
	r.LoadgenProcess, _, _ = self.stop()
	if r.Silence != nil && r.Silence.Err != "" {
		return r, errors.New(r.Silence.Err)
	}
	return r, ctx.Err()
}

func (g *generator) say(format string, args ...any) {
	if g.progress != nil {
		fmt.Fprintf(g.progress, "loadgen: "+format+"\n", args...)
	}
}

// stopAfter is closed once d has passed.
func stopAfter(d time.Duration) <-chan struct{} {
	c := make(chan struct{})
	time.AfterFunc(d, func() { close(c) })
	return c
}
