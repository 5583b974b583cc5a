package app

import (
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/illumos"
	"herd/adapters/mockruntime"
	"herd/domain"
	"herd/reconcilers/termination"
	"herd/reconcilers/zones"
)

// Both runtimes fit both reconcilers: one set of domain types for the
// mock and for zones.
var (
	_ zones.Runtime       = (*mockruntime.Runtime)(nil)
	_ termination.Runtime = (*mockruntime.Runtime)(nil)
	_ zones.Runtime       = (*illumos.Runtime)(nil)
	_ termination.Runtime = (*illumos.Runtime)(nil)
)

// nodeRuntimes decides which runtime in this process runs a node's pods:
// the mock for nodes without an agent of their own, under
// --node-runtime=mock; none for a node labelled herd.dev/runtime=agent
// (its agent runs its pods), for kubelet nodes (the kubelet runs its own
// pods, herd only observes them) and for Picos, which run none.
type nodeRuntimes struct {
	// mock is nil under --node-runtime=none.
	mock *mockruntime.Runtime
}

func newNodeRuntimes(cfg Config, mock *mockruntime.Runtime, log *zap.Logger) nodeRuntimes {
	if cfg.NodeRuntime == NodeRuntimeNone {
		log.Info("herd runs no pods itself: every node's agent runs its own (--node-runtime=none)")
		return nodeRuntimes{}
	}
	return nodeRuntimes{mock: mock}
}

// forNode returns the runtime that runs the node's pods, and false when
// none in this process does.
func (r nodeRuntimes) forNode(n domain.Node) (*mockruntime.Runtime, bool) {
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
