package app

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/mockruntime"
	"herd/domain"
)

func TestNodeRuntimes(t *testing.T) {
	mock, err := mockruntime.New(mockruntime.Config{}, clocktesting.NewFakeClock(time.Unix(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	agent := map[string]string{domain.LabelRuntime: domain.RuntimeAgent}
	tests := []struct {
		name        string
		nodeRuntime string
		node        domain.Node
		want        bool
	}{
		{"a linux node without an agent of its own", NodeRuntimeMock, domain.Node{Name: "n1", Kind: domain.KindLinux}, true},
		{"an illumos node without an agent of its own", NodeRuntimeMock, domain.Node{Name: "n1", Kind: domain.KindIllumos}, true},
		{"a node whose agent runs its pods", NodeRuntimeMock, domain.Node{Name: "n1", Kind: domain.KindIllumos, Labels: agent}, false},
		{"a kubelet's node", NodeRuntimeMock, domain.Node{Name: "k1", Kind: domain.KindKubelet}, false},
		{"a Pico", NodeRuntimeMock, domain.Node{Name: "p1", Kind: domain.KindRP2040}, false},
		{"--node-runtime=none", NodeRuntimeNone, domain.Node{Name: "n1", Kind: domain.KindLinux}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.NodeRuntime = tt.nodeRuntime
			nr := newNodeRuntimes(cfg, mock, localRuntime{}, zap.NewNop())
			rt, ok := nr.forNode(tt.node)
			if ok != tt.want || ok && rt != podRuntime(mock) {
				t.Errorf("forNode = %v, %v; want %v", rt, ok, tt.want)
			}
			trt, tok := terminationRuntimes(nr).For(tt.node)
			zrt, zok := zonesRuntimes(nr).For(tt.node)
			if tok != tt.want || zok != tt.want || !tt.want && (trt != nil || zrt != nil) {
				t.Errorf("termination %v %v, zones %v %v; want %v", trt, tok, zrt, zok, tt.want)
			}
		})
	}
}

func TestConfigValidatesPodSettings(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NodeRuntime = "zones"
	cfg.MockRuntime.ShutdownDelay = -time.Second
	cfg.Termination.PodGCTimeout = 0
	err := cfg.Validate()
	if err == nil {
		t.Fatal("bad settings passed")
	}
	for _, want := range []string{`--node-runtime "zones": want mock or none`, "--mock-shutdown-delay -1s", "--pod-gc-timeout 0s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

func TestTheLocalNodesRuntime(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	mock, err := mockruntime.New(mockruntime.Config{}, clk)
	if err != nil {
		t.Fatal(err)
	}
	own, err := mockruntime.New(mockruntime.Config{}, clk)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.NodeRuntime = NodeRuntimeNone
	cfg.LocalNode.Name = "solo"
	nr := newNodeRuntimes(cfg, mock, localRuntime{own}, zap.NewNop())
	if rt, ok := nr.forNode(domain.Node{Name: "solo", Kind: domain.KindLinux}); !ok || rt != podRuntime(own) {
		t.Errorf("the local node: %v %v", rt, ok)
	}
	if rt, ok := nr.forNode(domain.Node{Name: "n1", Kind: domain.KindLinux}); ok {
		t.Errorf("another node under --node-runtime=none: %v", rt)
	}
}
