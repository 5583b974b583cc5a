package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// Durability under SIGKILL: how many acknowledged writes to collect before
// the kill, and how many clients write at once. Sixty-four connections,
// the fleet-scale load's shape, keep many requests in flight at the moment
// of the kill, so that herd dies in the middle of group commits, while
// the test stays within seconds.
const (
	durabilityNodes   = 32
	durabilityClients = 64
	acksBeforeKill    = 1500
	// acksWait bounds the wait for those writes: a few seconds on a
	// quiet machine, far more on two cores busy with the rest of the
	// suite under the race detector; only a herd that stopped answering
	// reaches it.
	acksWait = 2 * time.Minute
)

// ack is one write herd acknowledged with 200 OK: the node it touched and
// the resourceVersion (log position) it answered with.
type ack struct {
	node string
	rv   int64
}

// TestSIGKILLKeepsEveryAcknowledgedWrite is the promise of the log: once
// herd has answered 200 OK, the write is on disk. A SIGKILL in the middle
// of a stream of heartbeats loses nothing that was acknowledged, the views
// agree with the log after a restart, and a rebuild reproduces them.
func TestSIGKILLKeepsEveryAcknowledgedWrite(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	srv := startServe(t, serveOptions{DataDir: dataDir})
	nodes := make([]string, durabilityNodes)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("agent-%02d", i)
		registerAgent(t, srv.URL, nodes[i])
	}

	// Twice: the second kill hits a database that recovered from the first.
	var acks []ack
	for round := 1; round <= 2; round++ {
		more, inFlight := writeUntilSignalled(t, srv, nodes, syscall.SIGKILL, nil)
		t.Logf("round %d: %d writes acknowledged; %d requests in flight at the SIGKILL", round, len(more), inFlight)
		if ws, ok := srv.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("serve ended with %s, want killed by the test's SIGKILL", srv.cmd.ProcessState)
		}
		acks = append(acks, more...)
		// The last start runs no reconcilers: what is checked is the log
		// and the views the writes left, and a reconciler reacting to the
		// restart (a taint, a pod) would write after the log was read.
		var args []string
		if round == 2 {
			args = []string{"--reconcilers="}
		}
		srv = startServe(t, serveOptions{DataDir: dataDir, Args: args})
	}
	logged := readLog(t, srv.URL)
	checkAcknowledgedWritesInLog(t, srv.URL, logged, acks)
	checkViewsFollowLog(t, srv.URL, logged, nodes, acks)
	before := listNodesJSON(t, srv.URL)
	srv.stop()

	res := mustHerd(t, "replay", "--verify", "--data-dir", dataDir)
	if !strings.Contains(res.Stdout, "the live views equal a rebuild") {
		t.Errorf("replay --verify said %q, want that the live views equal a rebuild", res.Stdout)
	}
	res = mustHerd(t, "replay", "--data-dir", dataDir)
	if !strings.Contains(res.Stdout, fmt.Sprintf("up to position %d", logged[len(logged)-1].Position)) {
		t.Errorf("replay said %q, want a rebuild up to position %d", res.Stdout, logged[len(logged)-1].Position)
	}

	// Again without reconcilers: the comparison is of the rebuilt views
	// with the live ones, before anything reacts to the restart.
	srv = startServe(t, serveOptions{DataDir: dataDir, Args: []string{"--reconcilers="}})
	if diff := cmp.Diff(before, listNodesJSON(t, srv.URL)); diff != "" {
		t.Errorf("nodes served after a rebuild differ from before (-before +after):\n%s", diff)
	}
	srv.stop()
}

// writeUntilSignalled streams heartbeats (and now and then a
// re-registration, which is a restart) for nodes from several clients,
// sends serve sig once acksBeforeKill writes were acknowledged (and ready,
// when given, holds), waits for
// it to exit and returns every acknowledgement. Until the signal, every
// write must succeed.
func writeUntilSignalled(t *testing.T, srv *herdProc, nodes []string, sig os.Signal, ready func() bool) (acks []ack, inFlightAtSignal int64) {
	t.Helper()
	var (
		signalled atomic.Bool
		acked     atomic.Int64
		inFlight  atomic.Int64
		mu        sync.Mutex
		wg        sync.WaitGroup
		failure   error
	)
	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: durabilityClients},
	}
	for w := range durabilityClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []ack
			defer func() {
				mu.Lock()
				acks = append(acks, mine...)
				mu.Unlock()
			}()
			for i := 0; ; i++ {
				node := nodes[(w+i)%len(nodes)]
				inFlight.Add(1)
				a, err := write(t.Context(), client, srv.URL, node, w*100000+i)
				inFlight.Add(-1)
				if err != nil {
					if !signalled.Load() {
						mu.Lock()
						failure = errors.Join(failure, fmt.Errorf("client %d, write %d before the signal: %w", w, i, err))
						mu.Unlock()
					}
					return
				}
				if a != nil {
					mine = append(mine, *a)
					acked.Add(1)
				}
			}
		}()
	}
	err := poll(acksWait, func() (bool, error) {
		return acked.Load() >= acksBeforeKill && (ready == nil || ready()) || srv.exited(), nil
	})
	if err == nil {
		requireGroupedCommits(t, srv.URL)
	}
	inFlightAtSignal = inFlight.Load()
	signalled.Store(true)
	if _, serr := srv.signal(sig, stopTimeout); serr != nil {
		t.Errorf("%v serve: %v", sig, serr)
	}
	wg.Wait()
	if err != nil {
		t.Fatalf("only %d writes acknowledged: %v", acked.Load(), err)
	}
	if failure != nil {
		t.Fatalf("writes failed while serve was up:\n%v", failure)
	}
	return acks, inFlightAtSignal
}

// write sends the i-th write of a client for node: mostly heartbeats whose
// metrics wander across the pressure thresholds (so that conditions
// change too), every 50th a re-registration. It returns the
// acknowledgement, or nil when the answer was cut off by the kill.
func write(ctx context.Context, c *http.Client, base, node string, i int) (*ack, error) {
	method, url := http.MethodPost, agentPath(base, node)+"/heartbeat"
	var body any
	if i%50 == 49 {
		method, url = http.MethodPut, agentPath(base, node)+"/registration"
		body = map[string]any{
			"metadata": map[string]any{"name": node, "labels": map[string]string{"herd.dev/kind": "linux"}},
			"status":   map[string]any{"capacity": map[string]string{"cpu": "4", "memory": "8Gi"}},
		}
	} else {
		m := healthyMetrics()
		m.Load1 = float64(i%13) * 0.75 // above 8 (2 per CPU) now and then: HighLoad
		m.PIDsCurrent = int64(300 + i%97)
		if i%11 == 0 {
			m.MemoryAvailableBytes = gib / 2 // 94% used: MemoryPressure
		}
		body = heartbeatBody(m)
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	got, readErr := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, got)
	}
	var n corev1.Node
	if readErr != nil || json.Unmarshal(got, &n) != nil {
		// The process died between the header and the end of the
		// body: the client cannot know the write was acknowledged.
		return nil, fmt.Errorf("%s %s: answer cut off: %v", method, url, readErr) //nolint:errorlint // readErr is nil when the body read whole but is not JSON
	}
	rv, err := strconv.ParseInt(n.ResourceVersion, 10, 64)
	if err != nil || n.Name != node {
		return nil, fmt.Errorf("%s %s: answered node %q with resourceVersion %q", method, url, n.Name, n.ResourceVersion)
	}
	return &ack{node: node, rv: rv}, nil
}

// checkAcknowledgedWritesInLog requires every acknowledged position to be
// in the log, on the stream of the node that was written. A sample is also
// fetched one by one with ?after=P-1&limit=1, the way an auditor would.
func checkAcknowledgedWritesInLog(t *testing.T, base string, log []auditEvent, acks []ack) {
	t.Helper()
	byPos := make(map[int64]auditEvent, len(log))
	for _, e := range log {
		byPos[e.Position] = e
	}
	missing := 0
	for _, a := range acks {
		e, ok := byPos[a.rv]
		switch {
		case !ok:
			missing++
			if missing <= 10 {
				t.Errorf("acknowledged write to %s at position %d is not in the log", a.node, a.rv)
			}
		case e.Stream != "node/"+a.node:
			t.Errorf("position %d is on stream %s, but was acknowledged for node %s", a.rv, e.Stream, a.node)
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged writes lost (log head %d)", missing, len(acks), log[len(log)-1].Position)
	}
	for i := 0; i < len(acks); i += max(1, len(acks)/20) {
		p := acks[i].rv
		var page auditEventList
		mustCall(t, http.StatusOK, http.MethodGet, fmt.Sprintf("%s/apis/herd.dev/v1/auditevents?after=%d&limit=1", base, p-1), nil, &page)
		if len(page.Items) != 1 || page.Items[0].Position != p {
			t.Errorf("auditevents?after=%d&limit=1 = %+v, want the event at position %d", p-1, page.Items, p)
		}
	}
}

// checkViewsFollowLog requires each stream's versions to run 1, 2, 3, …
// without a gap or a repeat, and each node's resourceVersion to be the
// position of the last event on its stream — and at least the last one
// acknowledged for it.
func checkViewsFollowLog(t *testing.T, base string, log []auditEvent, nodes []string, acks []ack) {
	t.Helper()
	version := map[string]int64{}
	last := map[string]int64{}
	for _, e := range log {
		if e.Version != version[e.Stream]+1 {
			t.Errorf("stream %s: version %d at position %d follows version %d", e.Stream, e.Version, e.Position, version[e.Stream])
		}
		version[e.Stream] = e.Version
		last[e.Stream] = e.Position
	}
	lastAck := map[string]int64{}
	for _, a := range acks {
		lastAck[a.node] = max(lastAck[a.node], a.rv)
	}
	for _, name := range nodes {
		var n corev1.Node
		mustCall(t, http.StatusOK, http.MethodGet, base+"/api/v1/nodes/"+name, nil, &n)
		rv := resourceVersion(t, n)
		if rv < lastAck[name] {
			t.Errorf("node %s: resourceVersion %d after restart, but %d was acknowledged", name, rv, lastAck[name])
		}
		if rv != last["node/"+name] {
			t.Errorf("node %s: resourceVersion %d, but the last event on its stream is at %d", name, rv, last["node/"+name])
		}
	}
}

// requireGroupedCommits checks, on herd's /metrics, that the load really
// was committed in groups of more than one command: otherwise the kill
// would not test what it means to.
func requireGroupedCommits(t *testing.T, base string) {
	t.Helper()
	families, err := scrapeMetrics(t, base)
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	f, ok := families["herd_commit_group_commands"]
	if !ok || len(f.GetMetric()) != 1 {
		t.Fatal("metrics: no herd_commit_group_commands")
	}
	h := f.GetMetric()[0].GetHistogram()
	if h.GetSampleSum() <= float64(h.GetSampleCount()) {
		t.Errorf("%d group commits carried %.0f commands: the writes were never grouped", h.GetSampleCount(), h.GetSampleSum())
	}
}
