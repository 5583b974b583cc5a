package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	"herd/cmd/herd/app"
)

func newAgentCmd() *cobra.Command {
	cfg := app.DefaultAgentConfig()
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run a node: register this host with herd and run the pods herd places on it",
		Long: `herd agent makes this host a node of the fleet. It registers the host with
herd serve (its kind, CPUs, memory and pods, and what is allocatable after
--reserve-cpu and --reserve-memory), reports the host's metrics every
--heartbeat-interval, and deregisters on SIGTERM or SIGINT, so that its
next start is a clean start. It runs the pods herd binds to the node on
its runtime — zones on illumos, or the in-memory mock — once they have
their address, records how each one stops, and talks to herd over its
HTTP API only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.Version = version
			cfg.Token, _ = cmd.Flags().GetString("token")
			cfg.CAFile, _ = cmd.Flags().GetString("certificate-authority")
			if err := cfg.Validate(); err != nil {
				return reportErr(cmd, configError{err})
			}
			return reportErr(cmd, runAgent(cfg))
		},
	}
	addServerFlag(cmd, &cfg.Server)
	f := cmd.Flags()
	f.StringVar(&cfg.Node.Name, "node-name", cfg.Node.Name, "the node's name in the fleet (required)")
	addNodeFlags(f, &cfg.Node)
	f.DurationVar(&cfg.PollInterval, "poll-interval", cfg.PollInterval, "how often every pod of the node is checked against the runtime (new and deleted pods arrive at once through a watch)")
	f.StringVar(&cfg.MetricsListen, "metrics-listen", cfg.MetricsListen, "where the agent serves /metrics (Prometheus) and /healthz; loopback by default, empty for none")
	f.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error")
	f.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "console or json")
	f.StringArrayVar(&cfg.WatchServices, "watch-service", cfg.WatchServices, "a service whose state every heartbeat reports, for the node's ServicesHealthy condition; repeat for more: a systemd unit on Linux (nginx is nginx.service), an SMF service on illumos (svc:/network/ssh:default or ssh). One that does not exist counts as failed")
	f.DurationVar(&cfg.MockRuntime.ShutdownDelay, "mock-shutdown-delay", cfg.MockRuntime.ShutdownDelay, "how long a pod on the mock runtime takes to stop once asked (per pod: annotation mock.herd.dev/shutdown-seconds)")
	return cmd
}

// addNodeFlags adds the flags of a node of herd's own: its runtime, the
// zone runtime's settings, its reservations and its heartbeat.
func addNodeFlags(f *pflag.FlagSet, c *app.NodeConfig) {
	f.StringVar(&c.Runtime, "runtime", c.Runtime, `what runs the node's pods: "illumos" (zones) or "mock" (in memory, runs nothing real)`)
	f.StringVar(&c.Address, "node-ip", c.Address, "the node's InternalIP address, which its pods report as their hostIP")
	f.Var(quantityFlag{v: &c.ReserveCPU, milli: true}, "reserve-cpu", "CPU kept back for the host (a quantity: 500m, 1)")
	f.Var(quantityFlag{v: &c.ReserveMemory}, "reserve-memory", "memory kept back for the host (a quantity: 512Mi, 1Gi)")
	f.Int64Var(&c.MaxPods, "max-pods", c.MaxPods, "how many pods the node takes (the kubelet's default)")
	f.DurationVar(&c.HeartbeatInterval, "heartbeat-interval", c.HeartbeatInterval, "how often the node reports its metrics")
	f.StringVar(&c.Illumos.StoragePool, "storage-pool", c.Illumos.StoragePool, "ZFS pool of the zones' datasets (runtime illumos); also the disk the heartbeat reports on illumos")
	f.StringVar(&c.Illumos.NetworkMode, "network-mode", c.Illumos.NetworkMode, `"etherstub" (pods on a virtual switch, the gateways in the global zone) or "direct" (pods' VNICs on --physical-link)`)
	f.StringVar(&c.Illumos.Link, "physical-link", c.Illumos.Link, "the data link pods' VNICs are made on in direct mode")
	f.StringVar(&c.Illumos.Etherstub, "etherstub-name", c.Illumos.Etherstub, "the etherstub of etherstub mode")
	f.StringVar(&c.Illumos.Etherstub, "etherstub", c.Illumos.Etherstub, "the older spelling of --etherstub-name")
	f.StringVar(&c.Illumos.ZonesDataset, "zones-dataset", c.Illumos.ZonesDataset, "the ZFS dataset zone roots are made under (default <storage-pool>/herd/zones); made if missing")
	f.StringVar(&c.Illumos.ImagesDataset, "images-dataset", c.Illumos.ImagesDataset, "a ZFS dataset, mounted at --image-dir, that holds the zone images; made if missing (default none)")
	f.StringVar(&c.Illumos.DefaultBrand, "default-brand", c.Illumos.DefaultBrand, "the zone brand of pods that name none")
	f.StringSliceVar(&c.Illumos.CustomBrands, "zone-brands", c.Illumos.CustomBrands, "further zone brands this host runs besides lx and sparse")
	f.StringVar(&c.Illumos.ImageDir, "image-dir", c.Illumos.ImageDir, "where zone images named without a path are found")
	f.StringVar(&c.Illumos.LXKernelVersion, "lx-kernel-version", c.Illumos.LXKernelVersion, "the Linux kernel version lx zones report")
	f.IntVar(&c.Illumos.Retry.Attempts, "command-attempts", c.Illumos.Retry.Attempts, "how many times a zoneadm, zonecfg, dladm, zfs or ipadm command that failed on a busy or locked resource is run in all before the pod fails (runtime illumos)")
	f.DurationVar(&c.Illumos.Retry.Backoff, "command-backoff", c.Illumos.Retry.Backoff, "the wait before a busy command's second attempt; it doubles for each further one")
	f.StringVar(&c.Host.DiskPath, "disk-path", c.Host.DiskPath, "a path on the filesystem whose space the heartbeat reports (Linux)")
}

// quantityFlag reads a Kubernetes quantity into base units: millicores
// for CPU, bytes for memory.
type quantityFlag struct {
	v     *int64
	milli bool
}

func (q quantityFlag) String() string {
	if q.v == nil {
		return "0"
	}
	if q.milli {
		return resource.NewMilliQuantity(*q.v, resource.DecimalSI).String()
	}
	return resource.NewQuantity(*q.v, resource.BinarySI).String()
}

func (q quantityFlag) Set(s string) error {
	v, err := resource.ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("want a quantity such as 500m, 2 or 1Gi: %w", err)
	}
	if q.milli {
		*q.v = v.MilliValue()
	} else {
		*q.v = v.Value()
	}
	return nil
}

func (quantityFlag) Type() string { return "quantity" }

// agentStartTimeout bounds the agent's start: herd must answer the
// registration within it, or the agent exits and its supervisor starts it
// again.
const agentStartTimeout = time.Minute

// runAgent runs the agent until SIGINT or SIGTERM, then deregisters the
// node and stops.
func runAgent(cfg app.AgentConfig) error {
	return runUntilSignalled(app.AgentOptions(cfg), agentStartTimeout)
}
