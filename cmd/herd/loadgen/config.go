package loadgen

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"
)

// The styles of client loadgen speaks as.
const (
	// StyleKubelet registers with POST /api/v1/nodes and heartbeats with a
	// strategic-merge PATCH of the node's status, as a kubelet does.
	StyleKubelet = "kubelet"
	// StyleAgent registers and heartbeats with metrics through herd's
	// agent endpoints, as herd agent does.
	StyleAgent = "agent"
	// StylePico sends the RP2040 firmware's requests byte for byte, one
	// connection per request, as the board does.
	StylePico = "pico"
)

// Styles are the styles loadgen speaks, in the order --help lists them.
var Styles = []string{StyleKubelet, StyleAgent, StylePico}

// DefaultGracePeriod is Kubernetes' node-monitor-grace-period, herd's
// default: how long a node may stay silent before its Ready condition goes
// Unknown.
const DefaultGracePeriod = 40 * time.Second

// Config is one load run.
type Config struct {
	// Servers are the URLs of the herds loaded (--server, repeatable or
	// comma-separated): one herd, or replicas of one herd that share a
	// database. Node i talks to Servers[i mod len(Servers)] only, and
	// each connection to one server only, as a kubelet behind a load
	// balancer with sticky connections would: its lease renewals and
	// status reports all reach the same replica.
	Servers []string
	// AllowRemote lets Servers be outside 127.0.0.0/8 and ::1
	// (--allow-remote). Off, loadgen refuses to load any other machine.
	AllowRemote bool
	// Token is the bearer token sent with every request (--token or the
	// first line of --token-file); the pico style sends none, as the
	// firmware sends none.
	Token string
	// InsecureSkipVerify accepts any TLS certificate from an https server
	// (--insecure-skip-verify): a lab's self-signed herd.
	InsecureSkipVerify bool
	// Style is how the nodes talk to herd: kubelet, agent or pico.
	Style string
	// Nodes is how many nodes are registered and heartbeat (--nodes).
	Nodes int
	// Connections is how many requests are in flight at once, one worker
	// each; for the kubelet and agent styles also the number of TCP
	// connections (--connections).
	Connections int
	// NamePrefix starts every node's name, followed by its number in
	// five digits or more (default "loadgen-STYLE-", "pico-loadgen-" for pico, which
	// a --device-allow of pico-* accepts).
	NamePrefix string
	// Duration is the measured window (--duration). With Idle nothing is
	// sent during it; with FallSilent the window ends when every silent
	// node is marked, or at FallSilentTimeout.
	Duration time.Duration
	// Warmup is heartbeating before the window opens (--warmup); zero is
	// one heartbeat from every node.
	Warmup time.Duration
	// Interval is each node's heartbeat interval (--interval); zero sends
	// as fast as the connections allow.
	Interval time.Duration
	// Idle sends nothing during the window: herd's idle CPU with Nodes
	// registered (--idle).
	Idle bool
	// FallSilent is how many nodes stop heartbeating when the window
	// opens while the rest go on (--fall-silent).
	FallSilent int
	// GracePeriod is herd's --node-monitor-grace-period, against which
	// lateness is measured (--node-monitor-grace-period, as serve's flag).
	GracePeriod time.Duration
	// FallSilentTimeout bounds the wait for herd to mark the silent nodes
	// (--fall-silent-timeout; default twice the grace period plus a
	// minute).
	FallSilentTimeout time.Duration
	// ListInterval is how often the node list is read while waiting for
	// the silent nodes (--list-interval). It does not change the lateness
	// measured, which comes from herd's own timestamps.
	ListInterval time.Duration
	// ServerPIDs are herd's process IDs on this machine, one for each
	// replica, whose CPU and memory are reported for the window, each and
	// summed (--server-pid, repeatable or comma-separated); none reports
	// none, and a 0 among them is ignored, as --server-pid 0 always meant
	// none.
	ServerPIDs []int
	// Timeout bounds one request (--timeout).
	Timeout time.Duration
	// Encoding is what the kubelet style's nodes speak (--encoding): json,
	// protobuf (client-go's default for built-in kinds) or cbor. The node
	// is registered in it and every answer asked for in it; heartbeats
	// stay strategic-merge patches, which are JSON whatever the client
	// prefers, as a kubelet's are, unless StatusUpdate is put. Left
	// empty, the kubelet style speaks protobuf, as a kubelet does (its
	// --kube-api-content-type defaults to it), and the others JSON.
	Encoding string
	// StatusUpdate is how kubelet-style nodes report (--status-update):
	// patch, a strategic-merge PATCH of nodes/NAME/status as the kubelet
	// sends it, or put, the whole Node PUT to nodes/NAME/status in the
	// Encoding, as client-go's UpdateStatus sends it.
	StatusUpdate string
	// Lease makes kubelet-style nodes heartbeat as kubelets do since
	// Kubernetes 1.17 (--lease): each keeps its Lease in kube-node-lease,
	// renewed every Interval by a PUT with the resourceVersion it last
	// saw, and reports its status only every StatusEvery.
	Lease bool
	// StatusEvery is how often a node with Lease reports its status
	// (--status-every): the kubelet's nodeStatusReportFrequency. A node's
	// first report after registering comes after StatusEvery plus a
	// uniformly random part of it between -1/2 and +1/2, as a restarted
	// kubelet's does, so that the fleet's reports are spread.
	StatusEvery time.Duration
}

// DefaultStatusEvery is the kubelet's nodeStatusReportFrequency.
const DefaultStatusEvery = 5 * time.Minute

// The ways --status-update names.
const (
	StatusUpdatePatch = "patch"
	StatusUpdatePut   = "put"
)

// StatusUpdates are the values --status-update takes.
var StatusUpdates = []string{StatusUpdatePatch, StatusUpdatePut}

// The encodings --encoding names, and the media types they stand for.
const (
	EncodingJSON     = "json"
	EncodingProtobuf = "protobuf"
	EncodingCBOR     = "cbor"
)

// DefaultEncoding is what a style's nodes speak when --encoding is not
// given: a kubelet sends protobuf to the API server for the built-in kinds
// (its --kube-api-content-type), so the kubelet style does too; the other
// styles speak JSON alone.
func DefaultEncoding(style string) string {
	if style == StyleKubelet {
		return EncodingProtobuf
	}
	return EncodingJSON
}

// Encodings are the values --encoding takes.
var Encodings = []string{EncodingJSON, EncodingProtobuf, EncodingCBOR}

// maxNodes bounds a run: a million nodes' state is what one loadgen
// process holds comfortably.
const maxNodes = 1_000_000

// DefaultConfig is a small kubelet-style run against a local herd.
func DefaultConfig() Config {
	return Config{
		Servers: []string{"http://127.0.0.1:8080"}, Style: StyleKubelet, Nodes: 100, Connections: 64,
		Duration: 10 * time.Second, GracePeriod: DefaultGracePeriod, ListInterval: time.Second,
		Timeout: 30 * time.Second, StatusUpdate: StatusUpdatePatch, StatusEvery: DefaultStatusEvery,
	}
}

// setDefaults fills what depends on other settings.
func (c *Config) setDefaults() {
	if c.NamePrefix == "" {
		c.NamePrefix = "loadgen-" + c.Style + "-"
		if c.Style == StylePico {
			c.NamePrefix = "pico-loadgen-"
		}
	}
	if c.FallSilentTimeout <= 0 {
		c.FallSilentTimeout = 2*c.GracePeriod + time.Minute
	}
	if c.ListInterval <= 0 {
		c.ListInterval = time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.Encoding == "" {
		c.Encoding = DefaultEncoding(c.Style)
	}
	c.ServerPIDs = slices.DeleteFunc(slices.Clone(c.ServerPIDs), func(pid int) bool { return pid == 0 })
}

// server is the index in Servers of the herd node i talks to, for every
// request it sends.
func (c Config) server(i int) int { return i % len(c.Servers) }

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	var errs []error
	if len(c.Servers) == 0 {
		errs = append(errs, errors.New("--server: want at least one URL, such as http://127.0.0.1:8080"))
	}
	for i, s := range c.Servers {
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--server %q: want a URL such as http://127.0.0.1:8080", s))
		} else if c.Style == StylePico && u.Scheme != "http" {
			errs = append(errs, fmt.Errorf("--style pico: the firmware speaks plain http only, not %s", s))
		}
		if slices.Index(c.Servers, s) < i {
			errs = append(errs, fmt.Errorf("--server %s: given twice; each replica once", s))
		}
	}
	if len(c.Servers) > 1 && c.Connections >= 1 && c.Connections < len(c.Servers) {
		errs = append(errs, fmt.Errorf("--connections %d: want at least one for each of the %d servers", c.Connections, len(c.Servers)))
	}
	if !slices.Contains(Styles, c.Style) {
		errs = append(errs, fmt.Errorf("--style %q: want one of %v", c.Style, Styles))
	}
	if c.Style == StylePico && c.Token != "" {
		errs = append(errs, errors.New("--token: the pico style sends no token, as the firmware sends none; point --server at herd's --device-listen"))
	}
	if c.Nodes < 1 {
		errs = append(errs, fmt.Errorf("--nodes %d: want at least 1", c.Nodes))
	}
	if c.Nodes > maxNodes {
		errs = append(errs, fmt.Errorf("--nodes %d: at most %d", c.Nodes, maxNodes))
	}
	if c.Connections < 1 {
		errs = append(errs, fmt.Errorf("--connections %d: want at least 1", c.Connections))
	}
	if c.Duration <= 0 && c.FallSilent == 0 {
		errs = append(errs, fmt.Errorf("--duration %s: want a positive duration", c.Duration))
	}
	if c.Warmup < 0 || c.Interval < 0 {
		errs = append(errs, fmt.Errorf("--warmup %s, --interval %s: neither may be negative", c.Warmup, c.Interval))
	}
	if c.FallSilent < 0 || c.FallSilent > c.Nodes {
		errs = append(errs, fmt.Errorf("--fall-silent %d: want between 0 and --nodes (%d)", c.FallSilent, c.Nodes))
	}
	if c.Idle && c.FallSilent > 0 {
		errs = append(errs, errors.New("--idle and --fall-silent: an idle run sends nothing, so no node can fall silent in it"))
	}
	if c.FallSilent > 0 && c.GracePeriod <= 0 {
		errs = append(errs, fmt.Errorf("--node-monitor-grace-period %s: want herd's, which is positive", c.GracePeriod))
	}
	for i, pid := range c.ServerPIDs {
		if pid < 0 {
			errs = append(errs, fmt.Errorf("--server-pid %d: want a process ID", pid))
		} else if pid > 0 && slices.Index(c.ServerPIDs, pid) < i {
			errs = append(errs, fmt.Errorf("--server-pid %d: given twice; each process once", pid))
		}
	}
	if c.Encoding != "" && !slices.Contains(Encodings, c.Encoding) {
		errs = append(errs, fmt.Errorf("--encoding %q: want one of %v", c.Encoding, Encodings))
	} else if c.Encoding != "" && c.Encoding != EncodingJSON && c.Style != StyleKubelet {
		errs = append(errs, fmt.Errorf("--encoding %s: only the kubelet style speaks Kubernetes' encodings; the %s style speaks JSON", c.Encoding, c.Style))
	}
	if c.StatusUpdate != "" && !slices.Contains(StatusUpdates, c.StatusUpdate) {
		errs = append(errs, fmt.Errorf("--status-update %q: want one of %v", c.StatusUpdate, StatusUpdates))
	} else if c.StatusUpdate == StatusUpdatePut && c.Style != StyleKubelet {
		errs = append(errs, fmt.Errorf("--status-update put: only the kubelet style updates a Node's status; the %s style reports its own way", c.Style))
	}
	if c.Lease && c.Style != StyleKubelet {
		errs = append(errs, fmt.Errorf("--lease: only the kubelet style keeps a node lease; the %s style heartbeats its own way", c.Style))
	}
	if c.Lease && c.StatusEvery <= 0 {
		errs = append(errs, fmt.Errorf("--status-every %s: want a positive duration", c.StatusEvery))
	}
	return errors.Join(errs...)
}
