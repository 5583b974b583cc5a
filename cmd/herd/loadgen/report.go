package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// Report is what a run measured; `-o json` prints it as is.
type Report struct {
	// Style, Server, Nodes, Connections and IntervalSeconds say what was
	// run. Server is the herd loaded, the first of Servers when there were
	// several.
	Style  string `json:"style"`
	Server string `json:"server"`
	// Servers are every herd loaded, when there were several (replicas):
	// node i talked to Servers[i mod len(Servers)].
	Servers         []string `json:"servers,omitempty"`
	Nodes           int      `json:"nodes"`
	Connections     int      `json:"connections"`
	IntervalSeconds float64  `json:"intervalSeconds"`
	// Encoding is what the nodes registered in and asked answers in.
	Encoding string `json:"encoding,omitempty"`
	// StatusUpdate is how kubelet-style nodes reported: patch or put.
	StatusUpdate string `json:"statusUpdate,omitempty"`
	// Lease is true when kubelet-style nodes kept node leases, reporting
	// their status every StatusEverySeconds (--lease, --status-every).
	Lease              bool    `json:"lease,omitempty"`
	StatusEverySeconds float64 `json:"statusEverySeconds,omitempty"`
	// Idle is true for a run that sent nothing in its window.
	Idle bool `json:"idle,omitempty"`
	// Register, Warmup and Heartbeats are the three phases; Heartbeats is
	// the measured window (empty for an idle run).
	Register Phase `json:"register"`
	Warmup   Phase `json:"warmup"`
	// KeptAlive is the heartbeats of nodes already registered while the
	// others registered, with --interval: a kubelet renews its lease from
	// the moment it has registered, and a fleet of 100,000 takes minutes
	// to register, longer than its nodes' grace period.
	KeptAlive  Phase `json:"keptAlive,omitzero"`
	Heartbeats Phase `json:"heartbeats,omitzero"`
	// WindowSeconds is the measured window's length.
	WindowSeconds float64 `json:"windowSeconds"`
	// ServerProcess is herd's process over the window, with --server-pid;
	// with several, their sum, and ServerProcesses each of them.
	ServerProcess   *Process  `json:"serverProcess,omitempty"`
	ServerProcesses []Process `json:"serverProcesses,omitempty"`
	// LoadgenProcess is loadgen's own, which shares the machine with
	// herd (nil where /proc cannot tell).
	LoadgenProcess *Process `json:"loadgenProcess,omitempty"`
	// Silence is how late herd marked the silent nodes, with
	// --fall-silent.
	Silence *Silence `json:"silence,omitempty"`
}

// Phase is one phase's requests.
type Phase struct {
	// Requests were sent; Acknowledged got a 2xx.
	Requests     uint64 `json:"requests"`
	Acknowledged uint64 `json:"acknowledged"`
	// Seconds is how long the phase took; PerSecond is acknowledged
	// requests per second of it.
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"perSecond"`
	// Latency is of acknowledged requests, nil when there were none:
	// from the moment each had a connection (a kubelet has its own; the
	// run shares --connections) to its answer.
	Latency *Latency `json:"latency,omitempty"`
	// Errors counts the others by HTTP status ("transport" when herd did
	// not answer).
	Errors map[string]uint64 `json:"errors,omitempty"`
	// FirstError is one of them in words.
	FirstError string `json:"firstError,omitempty"`
	// ScheduleLag is how far behind its schedule the load generator sent
	// (with --interval): how late each node's turn began after the time
	// it was due. A large lag means the fleet simulated was slower than
	// the one asked for, and the rate measured is not the rate asked.
	ScheduleLag *Latency `json:"scheduleLag,omitempty"`
	// TurnsSkipped counts paced turns not taken because the node's
	// previous turn (its request, or its wait for a Retry-After) was still
	// running when the next came due.
	TurnsSkipped uint64 `json:"turnsSkipped,omitempty"`
	// Kinds break the requests down by what was sent, for nodes that send
	// more than one kind (kubelets with --lease: "lease renewal",
	// "status report"...).
	Kinds map[string]Phase `json:"kinds,omitempty"`
	// Servers break the requests down by server, in the order of
	// Report.Servers, when there were several.
	Servers []Phase `json:"servers,omitempty"`
}

// Latency is in milliseconds, from a log-linear histogram (within 1.6%);
// Max is exact. It also measures schedule lag.
type Latency struct {
	P50 float64 `json:"p50Ms"`
	P99 float64 `json:"p99Ms"`
	Max float64 `json:"maxMs"`
}

// Print writes the report as a fixed block of text, or as JSON when
// format is "json".
func (r Report) Print(w io.Writer, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "", "text":
	default:
		return fmt.Errorf("-o %q: want text or json", format)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	interval := "as fast as possible"
	switch {
	case r.Idle:
		interval = "none in the window"
	case r.IntervalSeconds > 0:
		interval = fmt.Sprintf("every %gs per node", r.IntervalSeconds)
	}
	style := r.Style + " style"
	if r.Lease {
		style += fmt.Sprintf(" with node leases, status every %gs", r.StatusEverySeconds)
	}
	if r.StatusUpdate == StatusUpdatePut {
		style += ", status PUT"
	}
	if r.Encoding != "" && (r.Style == StyleKubelet || r.Encoding != EncodingJSON) {
		style += " in " + r.Encoding
	}
	fmt.Fprintf(tw, "herd loadgen\t%s, %d nodes, %d connections, heartbeats %s\n", style, r.Nodes, r.Connections, interval)
	if len(r.Servers) > 1 {
		fmt.Fprintf(tw, "servers\t%d, node i talking to server i mod %d\n", len(r.Servers), len(r.Servers))
		for s, server := range r.Servers {
			fmt.Fprintf(tw, "  server %d\t%s\n", s, server)
		}
	} else {
		fmt.Fprintf(tw, "server\t%s\n", r.Server)
	}
	printPhase(tw, "register", r.Register)
	if r.KeptAlive.Requests > 0 {
		printPhase(tw, "kept alive", r.KeptAlive)
	}
	printPhase(tw, "warm-up", r.Warmup)
	if r.Idle {
		fmt.Fprintf(tw, "idle\t%.1fs with nothing sent\n", r.WindowSeconds)
	} else {
		printPhase(tw, "heartbeats", r.Heartbeats)
	}
	if p := r.ServerProcess; p != nil && len(r.ServerProcesses) > 1 {
		fmt.Fprintf(tw, "herd cpu\t%.3f of a core (%.2f s of CPU in %.1f s), %d processes together\n", p.CPUCores, p.CPUSeconds, r.WindowSeconds, len(r.ServerProcesses))
		fmt.Fprintf(tw, "herd rss\tfinal %s, peak in window %s, peaks of the processes %s, together\n", mib(p.RSSFinalBytes), mib(p.RSSPeakBytes), mib(p.HWMBytes))
		for _, e := range r.ServerProcesses {
			fmt.Fprintf(tw, "  pid %d\tcpu %.3f of a core (%.2f s); rss final %s, peak in window %s, peak of the process %s\n",
				e.PID, e.CPUCores, e.CPUSeconds, mib(e.RSSFinalBytes), mib(e.RSSPeakBytes), mib(e.HWMBytes))
		}
	} else if p != nil {
		fmt.Fprintf(tw, "herd cpu\t%.3f of a core (%.2f s of CPU in %.1f s)\n", p.CPUCores, p.CPUSeconds, r.WindowSeconds)
		fmt.Fprintf(tw, "herd rss\tfinal %s, peak in window %s, peak of the process %s\n", mib(p.RSSFinalBytes), mib(p.RSSPeakBytes), mib(p.HWMBytes))
	}
	if p := r.LoadgenProcess; p != nil {
		fmt.Fprintf(tw, "loadgen cpu\t%.3f of a core\n", p.CPUCores)
	}
	if s := r.Silence; s != nil {
		fmt.Fprintf(tw, "fall silent\t%d of %d nodes marked Unknown (grace %gs)", s.Marked, s.Silent, s.GracePeriodSeconds)
		if s.TimedOut {
			fmt.Fprintf(tw, ", gave up after %.0fs", s.WaitedSeconds)
		}
		fmt.Fprintln(tw)
		if s.Marked > 0 {
			fmt.Fprintf(tw, "lateness\tp50 %+.0fs  p99 %+.0fs  max %+.0fs  (herd's clock, to the second)\n", s.LatenessP50, s.LatenessP99, s.LatenessMax)
		}
		if s.HeartbeatingNotReady > 0 {
			fmt.Fprintf(tw, "wrongly marked\t%d heartbeating nodes not Ready\n", s.HeartbeatingNotReady)
		}
	}
	return tw.Flush()
}

func printPhase(w io.Writer, name string, p Phase) {
	fmt.Fprintf(w, "%s\t%d/%d acknowledged in %.1fs, %.0f/s", name, p.Acknowledged, p.Requests, p.Seconds, p.PerSecond)
	if l := p.Latency; l != nil {
		fmt.Fprintf(w, "; latency p50 %.1fms p99 %.1fms max %.1fms", l.P50, l.P99, l.Max)
	}
	fmt.Fprintln(w)
	printErrors(w, "  errors", p)
	if l := p.ScheduleLag; l != nil {
		fmt.Fprintf(w, "  behind schedule\tp50 %.1fms p99 %.1fms max %.1fms\n", l.P50, l.P99, l.Max)
	}
	if p.TurnsSkipped > 0 {
		fmt.Fprintf(w, "  turns skipped\t%d (the node's previous turn still ran)\n", p.TurnsSkipped)
	}
	for _, kind := range slices.Sorted(maps.Keys(p.Kinds)) {
		printPart(w, kind, p.Kinds[kind])
	}
	for s, sp := range p.Servers {
		printPart(w, fmt.Sprintf("server %d", s), sp)
	}
}

// printPart writes one part of a phase — a kind of request, or a server's
// share — on a line of its own, its refusals on the next.
func printPart(w io.Writer, name string, p Phase) {
	fmt.Fprintf(w, "  %s\t%d/%d acknowledged, %.0f/s", name, p.Acknowledged, p.Requests, p.PerSecond)
	if l := p.Latency; l != nil {
		fmt.Fprintf(w, "; latency p50 %.1fms p99 %.1fms max %.1fms", l.P50, l.P99, l.Max)
	}
	fmt.Fprintln(w)
	printErrors(w, "    errors", p)
}

// printErrors writes p's refusals by status on one line, if any.
func printErrors(w io.Writer, label string, p Phase) {
	if len(p.Errors) == 0 {
		return
	}
	keys := slices.Sorted(maps.Keys(p.Errors))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, p.Errors[k])
	}
	fmt.Fprintf(w, "%s\t%s; first: %s\n", label, strings.Join(parts, " "), p.FirstError)
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
