package app

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"herd/adapters/host"
	"herd/adapters/illumos"
)

// The runtimes a node of herd's own can run its pods on (--runtime).
const (
	// RuntimeMock runs pods in memory: nothing real runs, for hosts
	// without zones and for trying herd out.
	RuntimeMock = "mock"
	// RuntimeIllumos runs pods as zones (adapters/illumos).
	RuntimeIllumos = "illumos"
)

// NodeConfig is a host that runs herd's pods itself: the node of `herd
// agent`, or of `herd serve --local-node` on a single host.
type NodeConfig struct {
	// Name is the node's name (--node-name; serve's --local-node, where
	// empty means no local node).
	Name string
	// Runtime runs the node's pods: mock or illumos (--runtime).
	Runtime string
	// Illumos sets up the zone runtime (--storage-pool, --network-mode,
	// --physical-link, --etherstub).
	Illumos illumos.Config
	// Host says where the host's disk space is read.
	Host host.Config
	// Address is the node's InternalIP (--node-ip), which its pods report
	// as their hostIP; empty for none.
	Address string
	// ReserveCPU, in millicores, and ReserveMemory, in bytes, are kept
	// back for the host itself: allocatable is capacity less these
	// (--reserve-cpu, --reserve-memory, as the kubelet's
	// --system-reserved).
	ReserveCPU    int64
	ReserveMemory int64
	// MaxPods is the node's capacity in pods (--max-pods, default 110,
	// the kubelet's default).
	MaxPods int64
	// HeartbeatInterval is how often the node reports its metrics
	// (--heartbeat-interval, default 10 s, as herd's agents and the
	// Pico firmware report).
	HeartbeatInterval time.Duration
}

// DefaultNodeConfig is a mock node of 110 pods reporting every 10 s.
func DefaultNodeConfig() NodeConfig {
	return NodeConfig{
		Runtime:           RuntimeMock,
		Illumos:           illumos.DefaultConfig(),
		Host:              host.DefaultConfig(),
		MaxPods:           110,
		HeartbeatInterval: 10 * time.Second,
	}
}

// Validate names every setting that is wrong; nameFlag is the flag that
// names the node (--node-name, --local-node).
func (c NodeConfig) Validate(nameFlag string) error {
	var errs []error
	if c.Name == "" {
		errs = append(errs, fmt.Errorf("%s is required", nameFlag))
	} else if msgs := validation.IsDNS1123Subdomain(c.Name); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("%s %q: %s", nameFlag, c.Name, strings.Join(msgs, "; ")))
	}
	switch c.Runtime {
	case RuntimeMock:
	case RuntimeIllumos:
		if err := c.Illumos.Validate(); err != nil {
			errs = append(errs, err)
		}
	default:
		errs = append(errs, fmt.Errorf("--runtime %q: want %s or %s", c.Runtime, RuntimeMock, RuntimeIllumos))
	}
	if c.Address != "" {
		if _, err := netip.ParseAddr(c.Address); err != nil {
			errs = append(errs, fmt.Errorf("--node-ip %q: want an IP address", c.Address))
		}
	}
	if c.ReserveCPU < 0 {
		errs = append(errs, fmt.Errorf("--reserve-cpu %dm: want 0 or more", c.ReserveCPU))
	}
	if c.ReserveMemory < 0 {
		errs = append(errs, fmt.Errorf("--reserve-memory %d: want 0 or more", c.ReserveMemory))
	}
	if c.MaxPods < 0 {
		errs = append(errs, fmt.Errorf("--max-pods %d: want 0 or more", c.MaxPods))
	}
	if c.HeartbeatInterval <= 0 {
		errs = append(errs, fmt.Errorf("--heartbeat-interval %s: want a positive duration", c.HeartbeatInterval))
	}
	return errors.Join(errs...)
}

// hostConfig is where the node's host is read: the disk of --disk-path on
// Linux, the storage pool on illumos.
func (c NodeConfig) hostConfig() host.Config {
	h := c.Host
	h.StoragePool = c.Illumos.StoragePool
	return h
}
