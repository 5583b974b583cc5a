package app

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/illumos"
	"herd/adapters/mockruntime"
	"herd/domain"
	"herd/reconcilers/termination"
	"herd/reconcilers/zones"
)

// podRuntime runs a node's pods for both reconcilers: one set of domain
// types for the mock and for zones.
type podRuntime interface {
	zones.Runtime
	termination.Runtime
}

var (
	_ podRuntime = (*mockruntime.Runtime)(nil)
	_ podRuntime = (*illumos.Runtime)(nil)
)

// nodeRuntimes decides which runtime in this process runs a node's pods:
// the local node's own runtime for --local-node; the mock for nodes
// without an agent of their own, under --node-runtime=mock; none for a
// node labelled herd.dev/runtime=agent (its agent runs its pods), for
// kubelet nodes (the kubelet runs its own pods, herd only observes them)
// and for Picos, which run none.
type nodeRuntimes struct {
	// mock is nil under --node-runtime=none.
	mock *mockruntime.Runtime
	// local runs the pods of the node named localName; nil without
	// --local-node.
	local     podRuntime
	localName string
}

// localRuntime is the runtime of --local-node's pods; nil without one.
type localRuntime struct{ podRuntime }

func newNodeRuntimes(cfg Config, mock *mockruntime.Runtime, local localRuntime, log *zap.Logger) nodeRuntimes {
	r := nodeRuntimes{mock: mock, local: local.podRuntime, localName: cfg.LocalNode.Name}
	if cfg.NodeRuntime == NodeRuntimeNone {
		log.Info("herd runs no pods of other nodes itself: every node's agent runs its own (--node-runtime=none)")
		r.mock = nil
	}
	return r
}

// forNode returns the runtime that runs the node's pods, and false when
// none in this process does.
func (r nodeRuntimes) forNode(n domain.Node) (podRuntime, bool) {
	if r.local != nil && n.Name == r.localName {
		return r.local, true
	}
	if r.mock == nil || n.RunsOwnPods() || n.Kind == domain.KindKubelet || n.Kind == domain.KindRP2040 {
		return nil, false
	}
	return r.mock, true
}

// The reconcilers each declare the runtime they use; these adapt the one
// decision to both.

func terminationRuntimes(r nodeRuntimes) termination.Runtimes {
	return termination.RuntimesFunc(func(n domain.Node) (termination.Runtime, bool) {
		if rt, ok := r.forNode(n); ok {
			return rt, true
		}
		return nil, false
	})
}

func zonesRuntimes(r nodeRuntimes) zones.Runtimes {
	return zones.RuntimesFunc(func(n domain.Node) (zones.Runtime, bool) {
		if rt, ok := r.forNode(n); ok {
			return rt, true
		}
		return nil, false
	})
}

// newMockRuntime is the one mock runtime of the process, shared by the
// zones and termination reconcilers; tests swap or inspect it through fx.
func newMockRuntime(cfg Config, clk clock.Clock) (*mockruntime.Runtime, error) {
	return mockruntime.New(cfg.MockRuntime, clk)
}

// newRunner runs host commands on this host; tests put a simulated
// illumos host in its place with fx.Decorate.
func newRunner() illumos.Runner { return illumos.ExecRunner{} }

// newLocalRuntime is the runtime of --local-node: the process's mock, or
// zones on this host, prepared (base datasets, etherstub) as herd starts.
func newLocalRuntime(lc fx.Lifecycle, cfg Config, mock *mockruntime.Runtime, run illumos.Runner, clk clock.Clock, log *zap.Logger) (localRuntime, error) {
	if cfg.LocalNode.Name == "" {
		return localRuntime{}, nil
	}
	rt, err := newPodRuntime(lc, cfg.LocalNode, func() (*mockruntime.Runtime, error) { return mock, nil }, run, clk, log, nil)
	return localRuntime{rt}, err
}

// newPodRuntime is a node's runtime as node names it: a mock (from
// newMock), or zones on this host through run, initialised when the app
// starts. A command that fails on a busy or locked resource is tried
// again (illumos.RetryingRunner), each retry logged. m, when not nil (the
// agent's), measures every run and counts the retries.
func newPodRuntime(lc fx.Lifecycle, node NodeConfig, newMock func() (*mockruntime.Runtime, error), run illumos.Runner, clk clock.Clock,
	log *zap.Logger, m *agentMetrics) (podRuntime, error) {
	if node.Runtime != RuntimeIllumos {
		return newMock()
	}
	if m != nil {
		run = instrumentedRunner{run: run, m: m}
	}
	run = &illumos.RetryingRunner{Runner: run, Clock: clk, Retry: node.Illumos.Retry,
		OnRetry: func(c illumos.Command, attempt int, wait time.Duration, err error) {
			if m != nil {
				m.commandRetries.WithLabelValues(c.Name).Inc()
			}
			log.Info("host command failed on a busy resource; trying again",
				zap.String("command", c.String()), zap.Int("attempt", attempt), zap.Duration("wait", wait), zap.Error(err))
		}}
	rt, err := illumos.New(node.Illumos, run, clk)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StartHook(func(ctx context.Context) error {
		if err := rt.Init(ctx); err != nil {
			hint := ""
			if runtime.GOOS != "illumos" {
				hint = fmt.Sprintf(" (this host runs %s; --runtime illumos needs zoneadm, dladm and zfs)", runtime.GOOS)
			}
			return fmt.Errorf("node %s: prepare the zone runtime: %w%s", node.Name, err, hint)
		}
		return nil
	}))
	return rt, nil
}
