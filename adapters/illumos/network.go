package illumos

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"herd/domain"
)

// Network makes and removes pods' VNICs. In etherstub mode it also makes
// the etherstub at start and, for each pool, a VNIC in the global zone
// that holds the pool's gateway address, so that pods on the etherstub
// reach their default router.
type Network struct {
	cfg Config
	run Runner
	// mu keeps two pods of one pool from making its gateway twice.
	mu sync.Mutex
}

// NewNetwork returns the network of cfg's mode.
func NewNetwork(cfg Config, run Runner) *Network { return &Network{cfg: cfg, run: run} }

// Init makes the etherstub (etherstub mode) or checks that the physical
// link exists (direct mode).
func (n *Network) Init(ctx context.Context) error {
	if n.cfg.NetworkMode == NetworkDirect {
		links, err := n.list(ctx, "show-link")
		if err != nil {
			return err
		}
		if !slices.Contains(links, n.cfg.Link) {
			return fmt.Errorf("--physical-link %s: no such data link on this host (dladm show-link lists %s)", n.cfg.Link, strings.Join(links, ", "))
		}
		return nil
	}
	stubs, err := n.list(ctx, "show-etherstub")
	if err != nil {
		return err
	}
	if slices.Contains(stubs, n.cfg.Etherstub) {
		return nil
	}
	if _, err := n.run.Run(ctx, Command{Name: "dladm", Args: []string{"create-etherstub", n.cfg.Etherstub}}); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	return nil
}

// list runs `dladm <sub> -p -o link` and returns the link names.
func (n *Network) list(ctx context.Context, sub string) ([]string, error) {
	out, err := n.run.Run(ctx, Command{Name: "dladm", Args: []string{sub, "-p", "-o", "link"}})
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	return parseLines(out), nil
}

// vnics returns the VNICs on the host.
func (n *Network) vnics(ctx context.Context) ([]string, error) { return n.list(ctx, "show-vnic") }

// ensureVNIC makes the pod's VNIC unless it exists.
func (n *Network) ensureVNIC(ctx context.Context, z zoneSpec) error {
	have, err := n.vnics(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(have, z.vnic) {
		return nil
	}
	if _, err := n.run.Run(ctx, Command{Name: "dladm", Args: []string{"create-vnic", "-l", z.over, z.vnic}}); err != nil {
		return fmt.Errorf("VNIC of zone %s: %w", z.zone, err)
	}
	return nil
}

// removeVNIC deletes a VNIC if it exists.
func (n *Network) removeVNIC(ctx context.Context, vnic string) error {
	have, err := n.vnics(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(have, vnic) {
		return nil
	}
	if _, err := n.run.Run(ctx, Command{Name: "dladm", Args: []string{"delete-vnic", vnic}}); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	return nil
}

// ensureGateway gives the global zone the pool's gateway address on the
// etherstub, in etherstub mode: a VNIC, an IP interface on it and a static
// address object "<vnic>/herd". Each step is skipped when done already.
func (n *Network) ensureGateway(ctx context.Context, nw domain.PodNetwork) error {
	if n.cfg.NetworkMode != NetworkEtherstub {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	gw := GatewayVNICName(nw.Pool)
	have, err := n.vnics(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(have, gw) {
		if _, err := n.run.Run(ctx, Command{Name: "dladm", Args: []string{"create-vnic", "-l", n.cfg.Etherstub, gw}}); err != nil {
			return fmt.Errorf("gateway of pool %s: %w", nw.Pool, err)
		}
	}
	out, err := n.run.Run(ctx, Command{Name: "ipadm", Args: []string{"show-if", "-p", "-o", "ifname"}})
	if err != nil {
		return fmt.Errorf("gateway of pool %s: %w", nw.Pool, err)
	}
	if !slices.Contains(parseLines(out), gw) {
		if _, err := n.run.Run(ctx, Command{Name: "ipadm", Args: []string{"create-if", gw}}); err != nil {
			return fmt.Errorf("gateway of pool %s: %w", nw.Pool, err)
		}
	}
	out, err = n.run.Run(ctx, Command{Name: "ipadm", Args: []string{"show-addr", "-p", "-o", "addrobj"}})
	if err != nil {
		return fmt.Errorf("gateway of pool %s: %w", nw.Pool, err)
	}
	if obj := gw + "/herd"; !slices.Contains(parseLines(out), obj) {
		addr := fmt.Sprintf("%s/%d", nw.Gateway, nw.PrefixLength)
		if _, err := n.run.Run(ctx, Command{Name: "ipadm", Args: []string{"create-addr", "-T", "static", "-a", addr, obj}}); err != nil {
			return fmt.Errorf("gateway of pool %s: %w", nw.Pool, err)
		}
	}
	return nil
}
