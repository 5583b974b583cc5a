package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"herd/cmd/herd/loadgen"
)

func newLoadgenCmd() *cobra.Command {
	cfg := loadgen.DefaultConfig()
	var tokenFile, output, jsonFile string
	cmd := &cobra.Command{
		Use:   "loadgen",
		Short: "Simulate a fleet against a herd: register nodes, send their heartbeats, report what herd acknowledged",
		Long: `herd loadgen registers --nodes nodes with the herd at --server and sends their
heartbeats as kubelets, herd agents or RP2040 boards do (--style), over
--connections connections. It warms up (one heartbeat from every node, or
--warmup; with --interval, each node instead keeps to its schedule from the
moment it has registered, while the others register), then measures for --duration: acknowledged heartbeats per second,
latency p50/p99/max and refusals by HTTP status. Given --server-pid, it also
reports herd's CPU (as a fraction of a core) and resident memory over the
window.

--lease makes kubelet-style nodes heartbeat as kubelets do today: each keeps
its Lease in kube-node-lease, renewed every --interval (10s for a kubelet) by
a PUT with the resourceVersion it last saw (after a 409 it reads the lease
and tries again), and reports its status only every --status-every (5m). The
report breaks the requests down by kind. With --interval, the report also
says how far behind its schedule loadgen sent: when that lag grows, the
fleet simulated is slower than the one asked for.

Several --server URLs (repeated or comma-separated) load replicas of one
herd that share a database: node i talks to the i mod n-th server only, and
each connection to one server only, as a kubelet behind a load balancer with
sticky connections would, so that a node's lease renewals and status
reports all reach the same replica. The report breaks each phase down by
server; with one --server-pid for each replica, it gives each one's CPU and
memory and their sum.

--idle registers the nodes and sends nothing for --duration: herd's idle CPU.
--fall-silent K stops K nodes when the window opens while the rest go on,
and reports how late herd marked each of them Unknown by herd's own clock,
against --node-monitor-grace-period: herd serve's flag of the same name, so
that HERD_NODE_MONITOR_GRACE_PERIOD sets both.

It loads herd on this machine only: a --server outside 127.0.0.0/8 and ::1
(after resolving its name) is refused unless --allow-remote is given, and
so is the whole run when any one of several is.`,
		Example: `  herd serve --data-dir /tmp/herd-bench &
  herd loadgen --nodes 10000 --connections 64 --duration 60s --server-pid $!
  herd loadgen --style agent --nodes 1000 --fall-silent 100 -o json
  herd loadgen --lease --interval 10s --status-every 5m --nodes 100000 --duration 10m
  herd loadgen --server http://127.0.0.1:8080,http://127.0.0.1:8081 --server-pid 4242,4243 --lease`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tokenFile != "" {
				if cmd.Flags().Changed("token") {
					return reportErr(cmd, fmt.Errorf("--token and --token-file: give one"))
				}
				data, err := os.ReadFile(tokenFile)
				if err != nil {
					return reportErr(cmd, fmt.Errorf("--token-file: %w", err))
				}
				cfg.Token, _, _ = strings.Cut(strings.TrimSpace(string(data)), "\n")
			}
			if output != "" && output != "text" && output != "json" {
				return reportErr(cmd, fmt.Errorf("-o %q: want text or json", output))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			r, runErr := loadgen.Run(ctx, cfg, cmd.ErrOrStderr())
			if r.Register.Acknowledged > 0 {
				if err := r.Print(cmd.OutOrStdout(), output); err != nil {
					return reportErr(cmd, err)
				}
				if err := writeReport(jsonFile, r); err != nil {
					return reportErr(cmd, err)
				}
			}
			return reportErr(cmd, runErr)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&cfg.Servers, "server", cfg.Servers, "URL of the herd to load; several (repeated or comma-separated) for replicas sharing one database, node i talking to the i mod n-th only")
	f.BoolVar(&cfg.AllowRemote, "allow-remote", cfg.AllowRemote, "load a herd outside 127.0.0.0/8 and ::1 too (it is refused otherwise)")
	f.StringVar(&cfg.Token, "token", cfg.Token, "bearer token for a herd started with --token-auth-file")
	f.StringVar(&tokenFile, "token-file", "", "file whose first line is the bearer token")
	f.BoolVar(&cfg.InsecureSkipVerify, "insecure-skip-verify", cfg.InsecureSkipVerify, "accept any TLS certificate from an https --server (labs only)")
	f.StringVar(&cfg.Style, "style", cfg.Style, "how the nodes talk to herd: "+strings.Join(loadgen.Styles, ", "))
	f.StringVar(&cfg.Encoding, "encoding", cfg.Encoding, "what kubelet-style nodes register in and ask answers in: "+strings.Join(loadgen.Encodings, ", ")+"; protobuf when not given, as a kubelet sends (heartbeat patches are JSON, as a kubelet's are)")
	f.StringVar(&cfg.StatusUpdate, "status-update", cfg.StatusUpdate, "how kubelet-style nodes report: patch (a strategic-merge PATCH of nodes/NAME/status, as a kubelet sends it) or put (the whole Node PUT in --encoding, as client-go's UpdateStatus sends it)")
	f.BoolVar(&cfg.Lease, "lease", cfg.Lease, "kubelet-style nodes keep a node Lease as kubelets do: a lease renewal (a PUT of it in kube-node-lease) every --interval, a status report every --status-every")
	f.DurationVar(&cfg.StatusEvery, "status-every", cfg.StatusEvery, "with --lease, how often each node reports its status (the kubelet's nodeStatusReportFrequency); the first report after registering is spread over half of it either side")
	f.IntVar(&cfg.Nodes, "nodes", cfg.Nodes, "nodes to register and heartbeat")
	f.IntVar(&cfg.Connections, "connections", cfg.Connections, "requests in flight at once, each on its own TCP connection (pico: a new connection per request, as the firmware)")
	f.StringVar(&cfg.NamePrefix, "name-prefix", cfg.NamePrefix, `node names are this and a number of five digits or more (default "loadgen-STYLE-", "pico-loadgen-" for pico)`)
	f.DurationVar(&cfg.Duration, "duration", cfg.Duration, "the measured window (with --fall-silent the window ends once every silent node is marked)")
	f.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "heartbeat this long before measuring; 0 is one heartbeat from every node (none with --interval: paced nodes keep to their schedule from registration on)")
	f.DurationVar(&cfg.Interval, "interval", cfg.Interval, "each node's heartbeat interval; 0 sends as fast as the connections allow")
	f.BoolVar(&cfg.Idle, "idle", cfg.Idle, "send nothing in the window: herd's idle CPU with --nodes registered")
	f.IntVar(&cfg.FallSilent, "fall-silent", cfg.FallSilent, "this many nodes stop heartbeating when the window opens; report how late herd marks them")
	f.DurationVar(&cfg.GracePeriod, "node-monitor-grace-period", cfg.GracePeriod, "herd serve's --node-monitor-grace-period, against which lateness is measured")
	f.DurationVar(&cfg.FallSilentTimeout, "fall-silent-timeout", cfg.FallSilentTimeout, "how long to wait for herd to mark the silent nodes (default twice --node-monitor-grace-period plus a minute)")
	f.DurationVar(&cfg.ListInterval, "list-interval", cfg.ListInterval, "how often the node list is read while waiting for silent nodes to be marked")
	f.IntSliceVar(&cfg.ServerPIDs, "server-pid", cfg.ServerPIDs, "herd's process ID on this machine: report its CPU and memory over the window; several (repeated or comma-separated) for replicas, each reported and summed")
	f.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "how long one request may take")
	f.StringVarP(&output, "output", "o", "text", "text or json")
	f.StringVar(&jsonFile, "json-file", "", "also write the report as JSON to this file (for make bench)")
	return cmd
}

// writeReport writes r as JSON to path; nothing when path is empty.
func writeReport(path string, r loadgen.Report) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--json-file: %w", err)
	}
	if err := r.Print(f, "json"); err != nil {
		_ = f.Close()
		return fmt.Errorf("--json-file %s: %w", path, err)
	}
	return f.Close()
}
