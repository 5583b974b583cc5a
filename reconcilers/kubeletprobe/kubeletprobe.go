package kubeletprobe

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// Reconciler probes the kubelet endpoints of the configured kinds of node.
// Each node is its own key: its probe re-queues itself after the interval
// (Result.RequeueAfter, on herd's clock), and the resync picks up any node
// whose chain of probes was broken, by a restart of herd for instance.
type Reconciler struct {
	cfg    Config
	nodes  domain.Executor[domain.Node, domain.NodeCommand]
	view   NodeReader
	clock  clock.PassiveClock
	client *http.Client
	log    *zap.Logger

	mu sync.Mutex
	// last is herd's clock at each node's latest probe.
	last map[string]time.Time
	// refused is the address each node was last not probed at, so that
	// herd says so once, not on every resync.
	refused map[string]string
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the kubelet probe reconciler.
func New(cfg Config, nodes domain.Executor[domain.Node, domain.NodeCommand], view NodeReader, clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Kinds) > 0 && len(cfg.Networks) == 0 {
		log.Named("kubeletprobe").Info("probing no kubelet endpoint: --kubelet-probe-networks names no network herd may probe")
	}
	return &Reconciler{
		cfg: cfg, nodes: nodes, view: view, clock: clk, client: newClient(),
		log: log.Named("kubeletprobe"), last: map[string]time.Time{}, refused: map[string]string{},
	}, nil
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "kubeletprobe" }

// Watches implements reconcilers.Reconciler: a node's probes start (or
// restart) when it registers, restarts or goes away, and a node whose
// kubelet endpoint moved is probed at once: the old port's failure says
// nothing about the new one. Heartbeats and condition changes need no
// probe.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		Takes(domain.NodeAggregate).
		Watches(lifeEvents, r.lifeChanged).
		Watches(reconcilers.EventTypesOf(domain.NodeKubeletEndpointChanged{}), r.endpointMoved)
}

// lifeChanged maps a node's registration, restart or removal to the node,
// unless it registered as a node herd will not probe (a kind not probed,
// no kubelet port): nothing to read then. Every kubelet of a large fleet
// registering would otherwise cost a read of its node's row while the
// write path is busiest. A probe it had before this registration stops
// at its next turn, which reads the node; what herd remembers of its
// probes goes now, as that turn's read would have dropped it.
func (r *Reconciler) lifeChanged(rec events.Record) []reconcilers.Key {
	if reg, ok := registration(rec); ok && !r.probes(reg) {
		r.forget(reg.Name)
		return nil
	}
	return reconcilers.KeysOf(rec)
}

// endpointMoved forgets the node's last probe and maps the event to the
// node.
func (r *Reconciler) endpointMoved(rec events.Record) []reconcilers.Key {
	keys := reconcilers.KeysOf(rec)
	for _, k := range keys {
		r.forget(k.Name)
	}
	return keys
}

// registration is what a NodeRegistered or NodeRestarted record says of
// the node that lifeChanged reads (its name, kind and kubelet port);
// false for any other record, or one that does not decode. Only those
// fields are decoded: every kubelet of a fleet registering passes here,
// and the rest of its registration (labels, capacity, addresses, system
// info) is nothing this reconciler reads.
func registration(rec events.Record) (domain.Registration, bool) {
	switch rec.Type {
	case domain.NodeRegistered{}.EventType(), domain.NodeRestarted{}.EventType():
	default:
		return domain.Registration{}, false
	}
	// Both events carry Registration's fields at the top of their
	// payload. goccy/go-json matches names as encoding/json does (as
	// replay decodes every event with it) and skips the other fields
	// without building them, nor a folded copy of their names.
	var reg struct {
		Name        string          `json:"name"`
		Kind        domain.NodeKind `json:"kind"`
		KubeletPort int32           `json:"kubeletPort"`
	}
	if err := gojson.Unmarshal(rec.Payload, &reg); err != nil {
		return domain.Registration{}, false
	}
	return domain.Registration{Name: reg.Name, Kind: reg.Kind, KubeletPort: reg.KubeletPort}, true
}

// probes says whether a node registered as reg has a kubelet endpoint of
// a kind herd probes (target says whether its address may be probed).
func (r *Reconciler) probes(reg domain.Registration) bool {
	return reg.KubeletPort > 0 && slices.Contains(r.cfg.Kinds, reg.Kind)
}

// lifeEvents start, restart or end a node's probes.
var lifeEvents = reconcilers.EventTypesOf(domain.NodeRegistered{}, domain.NodeRestarted{}, domain.NodeDeleted{})

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.cfg.Interval }

// Resync returns the nodes of the probed kinds that have not been probed
// for an interval: those herd has not started probing since it started.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	names, err := r.view.NamesOfKinds(ctx, r.cfg.Kinds)
	if err != nil {
		return nil, err
	}
	now := r.clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	var keys []reconcilers.Key
	for _, n := range names {
		if last, ok := r.last[n]; !ok || now.Sub(last) > r.cfg.Interval {
			keys = append(keys, reconcilers.Key{Aggregate: domain.NodeAggregate, Name: n})
		}
	}
	return keys, nil
}

// Reconcile probes one node, unless it was probed less than an interval
// ago, and records the outcome.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	name := key.Name
	now := r.clock.Now()
	if wait := r.untilDue(name, now); wait > 0 {
		return reconcilers.Result{RequeueAfter: wait}, nil
	}
	n, err := r.view.Get(ctx, name)
	if errors.Is(err, domain.ErrNotFound) {
		r.forget(name)
		r.mu.Lock()
		delete(r.refused, name)
		r.mu.Unlock()
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	host, ok := r.target(n)
	if !ok {
		r.forget(name)
		return reconcilers.Result{}, nil
	}
	if !r.allowed(host) {
		r.forget(name)
		r.refuse(name, host)
		return reconcilers.Result{}, nil
	}
	cmd := probe(ctx, r.client, host, n.KubeletPort, r.cfg.Timeout)
	if ctx.Err() != nil {
		return reconcilers.Result{}, ctx.Err()
	}
	r.mu.Lock()
	r.last[name] = now
	r.mu.Unlock()
	// A probe's result is the kubelet's answer at the time herd's clock
	// said to ask, not a consequence of a record: even the first probe,
	// queued by the node's registration or a new endpoint, reads only
	// the kubelet. Its condition's changes name no cause, as the health
	// monitor's marking of a silent node does not.
	ctx = events.Uncaused(events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:kubeletprobe", Source: "reconciler/kubeletprobe"}))
	_, err = r.nodes.Execute(ctx, domain.Key{Name: name}, domain.IfExists[domain.NodeCommand]{Command: cmd})
	if err != nil {
		return reconcilers.Result{}, err
	}
	r.log.Debug("probed", zap.String("node", name), zap.Bool("reachable", cmd.Reachable), zap.String("message", cmd.Message))
	return reconcilers.Result{RequeueAfter: r.cfg.Interval}, nil
}

// target is the host to probe: the node's InternalIP, when it is of a
// probed kind, running, and advertises a kubelet port.
func (r *Reconciler) target(n domain.Node) (string, bool) {
	if !n.Exists() || n.AgentState == domain.AgentStopped || n.KubeletPort <= 0 || !slices.Contains(r.cfg.Kinds, n.Kind) {
		return "", false
	}
	for _, a := range n.Addresses {
		if a.Type == "InternalIP" && a.Address != "" {
			return a.Address, true
		}
	}
	return "", false
}

// allowed says whether host is an address in one of the networks herd
// may probe. A name is never allowed: resolving it would let a node point
// herd anywhere.
func (r *Reconciler) allowed(host string) bool {
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, n := range r.cfg.Networks {
		if n.Contains(addr) {
			return true
		}
	}
	return false
}

// refuse logs, once per address, that a node's endpoint is outside the
// networks herd may probe.
func (r *Reconciler) refuse(name, host string) {
	r.mu.Lock()
	said := r.refused[name] == host
	r.refused[name] = host
	r.mu.Unlock()
	if !said {
		r.log.Info("not probing: the node's InternalIP is not in --kubelet-probe-networks",
			zap.String("node", name), zap.String("address", host))
	}
}

// untilDue is how long until the node is due for its next probe; 0 or less
// when it is due now.
func (r *Reconciler) untilDue(name string, now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	last, ok := r.last[name]
	if !ok {
		return 0
	}
	return r.cfg.Interval - now.Sub(last)
}

func (r *Reconciler) forget(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.last, name)
}
