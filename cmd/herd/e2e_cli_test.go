package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestCLI runs herd's own client commands (node, log, version, replay)
// against a real herd serve.
func TestCLI(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	registerAgent(t, srv.URL, "cli-agent")
	heartbeat(t, srv.URL, "cli-agent", healthyMetrics())
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "cli-pico",
		withConditions(map[string]string{"type": "MemoryPressure", "status": "True", "reason": "LowHeap"})))
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "cli-down", withReady("False", "KubeletNotReady")))
	server := "--server=" + srv.URL

	t.Run("node list", func(t *testing.T) {
		header, rows := table(t, mustHerd(t, "node", "list", server).Stdout)
		if want := []string{"NAME", "STATUS", "STATE", "KIND", "AGE", "VERSION", "JOBS", "CONDITIONS"}; !slices.Equal(header, want) {
			t.Fatalf("header %q, want %q", header, want)
		}
		// JOBS is active/max: the agent runs 1 of at most 8; a Pico
		// reports neither. CONDITIONS lists only trouble: a True
		// pressure by name, anything else by its status.
		want := map[string][]string{
			"cli-agent": {"Ready", "Ready", "linux", "herd-agent/v0.1.0", "1/8", "<none>"},
			"cli-pico":  {"Ready", "Ready", "rp2040", "v1.34.0", "-", "MemoryPressure"},
			"cli-down":  {"NotReady", "Starting", "rp2040", "v1.34.0", "-", "Ready=False"},
		}
		if got := names(rows); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
			t.Fatalf("nodes %q, want %q", got, slices.Sorted(maps.Keys(want)))
		}
		for name, w := range want {
			r := byName(rows)[name]
			if got := []string{r[1], r[2], r[3], r[5], r[6], r[7]}; !slices.Equal(got, w) {
				t.Errorf("%s: STATUS STATE KIND VERSION JOBS CONDITIONS = %q, want %q", name, got, w)
			}
			if r[4] == "" || strings.HasPrefix(r[4], "-") {
				t.Errorf("%s: AGE %q, want a duration such as 2s", name, r[4])
			}
		}
	})

	t.Run("node list -l", func(t *testing.T) {
		_, rows := table(t, mustHerd(t, "node", "list", server, "-l", "herd.dev/kind=rp2040").Stdout)
		if got := names(rows); !slices.Equal(got, []string{"cli-down", "cli-pico"}) {
			t.Errorf("herd.dev/kind=rp2040 selects %q, want [cli-down cli-pico]", got)
		}
	})

	t.Run("node list -o json", func(t *testing.T) {
		var list corev1.NodeList
		if err := json.Unmarshal([]byte(mustHerd(t, "node", "list", server, "-o", "json").Stdout), &list); err != nil {
			t.Fatalf("not a NodeList: %v", err)
		}
		if len(list.Items) != 3 || list.ResourceVersion == "" {
			t.Errorf("%d nodes at resourceVersion %q, want 3 at the log head", len(list.Items), list.ResourceVersion)
		}
	})

	t.Run("node get -o json and yaml", func(t *testing.T) {
		for _, format := range []string{"json", "yaml"} {
			out := mustHerd(t, "node", "get", "cli-agent", "-o", format, server).Stdout
			var n corev1.Node
			if err := yaml.Unmarshal([]byte(out), &n); err != nil { // YAML is a superset of JSON
				t.Fatalf("-o %s: not a Node: %v\n%s", format, err, out)
			}
			ready, _ := condition(n, corev1.NodeReady)
			if n.Name != "cli-agent" || ready.Status != corev1.ConditionTrue || n.Labels["herd.dev/kind"] != "linux" {
				t.Errorf("-o %s: node %q Ready=%q kind=%q, want cli-agent, True, linux", format, n.Name, ready.Status, n.Labels["herd.dev/kind"])
			}
		}
		if format := "json"; !json.Valid([]byte(mustHerd(t, "node", "get", "cli-agent", "-o", format, server).Stdout)) {
			t.Error("-o json is not valid JSON")
		}
	})

	t.Run("node get unknown", func(t *testing.T) {
		res := herd(t, nil, "node", "get", "no-such-node", server)
		if res.Code == 0 || !strings.Contains(res.Stderr, `"no-such-node" not found`) {
			t.Errorf("exit %d, stderr %q: want non-zero and that no-such-node is not found", res.Code, res.Stderr)
		}
	})

	t.Run("node events", func(t *testing.T) {
		header, _ := table(t, mustHerd(t, "node", "events", "cli-agent", server).Stdout)
		if want := []string{"TIME", "TYPE", "EVENT", "REASON", "MESSAGE"}; !slices.Equal(header, want) {
			t.Errorf("header %q, want %q", header, want)
		}
		_, rows := table(t, mustHerd(t, "node", "events", "cli-agent", server).Stdout)
		events := column(rows, 2)
		if types := column(rows, 1); !slices.Contains(types, "Normal") {
			t.Errorf("types of cli-agent's events %q, want Normal ones", types)
		}
		if !slices.Contains(events, "Registered") || !slices.Contains(events, "BecameReady") {
			t.Errorf("events of cli-agent %q, want Registered and BecameReady", events)
		}
		if events[0] != "Registered" {
			t.Errorf("first event %q, want Registered", events[0])
		}
	})

	t.Run("node undrain of a node never drained", func(t *testing.T) {
		res := mustHerd(t, "node", "undrain", "cli-agent", server)
		if want := "node/cli-agent already undrained: it was not draining\n"; res.Stdout != want {
			t.Errorf("herd node undrain said %q, want %q", res.Stdout, want)
		}
	})

	t.Run("node undrain of a node kubectl drain left cordoned", func(t *testing.T) {
		mustHerd(t, "node", "cordon", "cli-agent", server)
		res := mustHerd(t, "node", "undrain", "cli-agent", server)
		if want := "herd had no drain of its own to end"; !strings.Contains(res.Stdout, "node/cli-agent uncordoned (it had been cordoned") || !strings.Contains(res.Stdout, want) {
			t.Errorf("herd node undrain said %q, want it to say it uncordoned the node and %q", res.Stdout, want)
		}
	})

	t.Run("log --stream", func(t *testing.T) {
		out := mustHerd(t, "log", server, "--stream", "node/cli-agent").Stdout
		header, rows := table(t, out)
		if want := []string{"POSITION", "RECORDED", "STREAM", "VERSION", "TYPE", "ACTOR", "SOURCE"}; !slices.Equal(header, want) {
			t.Fatalf("header %q, want %q", header, want)
		}
		types := column(rows, 4)
		if len(types) == 0 || types[0] != "NodeRegistered" || !slices.Contains(types, "HeartbeatRecorded") {
			t.Errorf("types %q, want NodeRegistered first and a HeartbeatRecorded", types)
		}
		for _, r := range rows {
			if r[2] != "node/cli-agent" || r[6] != "httpapi" {
				t.Errorf("position %s: stream %q source %q, want node/cli-agent from httpapi", r[0], r[2], r[6])
			}
		}
	})

	t.Run("log --type", func(t *testing.T) {
		_, rows := table(t, mustHerd(t, "log", server, "--type", "NodeRegistered").Stdout)
		streams := column(rows, 2)
		slices.Sort(streams)
		if want := []string{"node/cli-agent", "node/cli-down", "node/cli-pico"}; !slices.Equal(streams, want) {
			t.Errorf("NodeRegistered on %q, want %q", streams, want)
		}
	})

	t.Run("node list -o wide", func(t *testing.T) {
		header, rows := table(t, mustHerd(t, "node", "list", server, "-o", "wide").Stdout)
		if want := []string{"NAME", "STATUS", "STATE", "KIND", "AGE", "VERSION", "JOBS", "CONDITIONS", "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"}; !slices.Equal(header, want) {
			t.Fatalf("header %q, want %q", header, want)
		}
		if len(rows) != 3 {
			t.Errorf("%d nodes, want 3", len(rows))
		}
	})

	t.Run("list -o name", func(t *testing.T) {
		if out, want := mustHerd(t, "node", "list", server, "-o", "name").Stdout, "node/cli-agent\nnode/cli-down\nnode/cli-pico\n"; out != want {
			t.Errorf("node list -o name = %q, want %q", out, want)
		}
		if out := mustHerd(t, "pod", "list", "-A", server, "-o", "name").Stdout; out != "" {
			t.Errorf("pod list -o name of no pods = %q, want nothing", out)
		}
	})

	t.Run("unknown output format", func(t *testing.T) {
		for _, args := range [][]string{{"node", "list"}, {"node", "get", "cli-agent"}, {"pod", "list"}, {"device", "list"}, {"log"}} {
			res := herd(t, nil, append(args, server, "-o", "xml")...)
			if res.Code != 2 || !strings.Contains(res.Stderr, `"xml" for "-o, --output"`) || !strings.Contains(res.Stderr, "want ") {
				t.Errorf("herd %s -o xml: exit %d, stderr %q; want 2, the bad -o named and what it takes", strings.Join(args, " "), res.Code, res.Stderr)
			}
		}
	})

	t.Run("HERD_SERVER", func(t *testing.T) {
		res := herd(t, []string{"HERD_SERVER=" + srv.URL}, "node", "list")
		if _, rows := table(t, res.Stdout); res.Code != 0 || len(rows) != 3 {
			t.Errorf("HERD_SERVER=%s herd node list: exit %d, %d nodes, stderr %q; want its 3 nodes", srv.URL, res.Code, len(rows), res.Stderr)
		}
		// A flag on the command line wins over the environment.
		res = herd(t, []string{"HERD_SERVER=http://127.0.0.1:1"}, "node", "list", server)
		if res.Code != 0 {
			t.Errorf("--server did not win over HERD_SERVER: exit %d, stderr %q", res.Code, res.Stderr)
		}
	})

	t.Run("replay --verify while serving", func(t *testing.T) {
		res := mustHerd(t, "replay", "--verify", "--data-dir", srv.DataDir)
		if !strings.Contains(res.Stdout, "the live views equal a rebuild") {
			t.Errorf("replay --verify said %q", res.Stdout)
		}
	})
}

// TestCLIErrors: the client says clearly what is wrong, and exits non-zero.
func TestCLIErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string // in stderr
	}{
		{name: "unreachable server", args: []string{"node", "list", "--server", "http://127.0.0.1:1"},
			want: "cannot reach herd at http://127.0.0.1:1"},
		{name: "unreachable server from HERD_SERVER", env: []string{"HERD_SERVER=http://127.0.0.1:1"}, args: []string{"log"},
			want: "cannot reach herd at http://127.0.0.1:1"},
		{name: "server not a URL", args: []string{"node", "get", "x", "--server", "nonsense"}, want: "--server"},
		{name: "replay without a log", args: []string{"replay", "--data-dir", t.TempDir()}, want: "no event log there"},
		// Errors found by cobra before any command runs.
		{name: "unknown command", args: []string{"nodes"}, want: `unknown command "nodes"`},
		{name: "unknown flag", args: []string{"node", "list", "--bogus"}, want: "--bogus"},
		{name: "missing argument", args: []string{"node", "get"}, want: "accepts 1 arg"},
		{name: "bad flag value", args: []string{"serve", "--poll-interval", "often"}, want: "--poll-interval"},
		{name: "bad environment", env: []string{"HERD_POLL_INTERVAL=often"}, args: []string{"serve"}, want: "HERD_POLL_INTERVAL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := herd(t, tc.env, tc.args...)
			if res.Code == 0 || !strings.Contains(res.Stderr, tc.want) {
				t.Errorf("herd %s: exit %d, stderr %q; want non-zero and %q", strings.Join(tc.args, " "), res.Code, res.Stderr, tc.want)
			}
		})
	}
}

// TestVersion: the binary reports the version it was built with.
func TestVersion(t *testing.T) {
	t.Parallel()
	if out := mustHerd(t, "version").Stdout; strings.TrimSpace(out) != "herd "+e2eVersion {
		t.Errorf("herd version = %q, want %q", out, "herd "+e2eVersion)
	}
}

// TestConfigErrors: a bad flag or HERD_ variable is one line naming it,
// and exit status 2, before anything starts — not fx's screens of wrapping.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string // in the one line of stderr
	}{
		{name: "reconcilers -*", args: []string{"--reconcilers", "-*"}, want: `--reconcilers: "-*" is not a thing`},
		{name: "unknown reconciler", args: []string{"--reconcilers", "*,-helth"}, want: `--reconcilers: no reconciler named "helth"`},
		{name: "reconciler workers", args: []string{"--reconciler-workers", "0"}, want: "--reconciler-workers 0"},
		{name: "watch cache", args: []string{"--watch-cache-size", "0"}, want: "--watch-cache-size 0"},
		{name: "kubelet config", args: []string{"--kubelet-config", "/no/such/kubelets.yaml"}, want: "--kubelet-config"},
		{name: "flag value", args: []string{"--poll-interval", "often"}, want: `"often" for "--poll-interval"`},
		{name: "environment", env: []string{"HERD_WATCH_HISTORY=forever"}, want: `HERD_WATCH_HISTORY="forever"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"serve", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0"}, tc.args...)
			res := herd(t, tc.env, args...)
			lines := strings.Split(strings.TrimRight(res.Stderr, "\n"), "\n")
			if res.Code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("herd %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(args, " "), res.Code, res.Stderr, tc.want)
			}
		})
	}
}
