package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// renewal is one lease renewal of a node: what was sent, and, once herd
// answered 200 OK, the resourceVersion it answered with (0 while in
// flight).
type renewal struct {
	node  string
	renew time.Time
	rv    int64
}

// TestSIGKILLUnderLeaseLoadKeepsEveryRenewal: kubelets renewing their node
// leases, as real ones do, from many connections; herd is killed in the
// middle. Every renewal it acknowledged is in the log, as the one event of
// its lease's stream, and after the restart each lease's renewTime — its
// node's last heartbeat — is the last one acknowledged for it (or the one
// that was in flight at the kill, had it committed); no renewal wrote
// anything of the node's; and replay --verify is clean.
func TestSIGKILLUnderLeaseLoadKeepsEveryRenewal(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	srv := startServe(t, serveOptions{DataDir: dataDir})
	const clients, perClient = 32, 2
	leasesURL := srv.URL + "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
	base := time.Now().UTC().Truncate(time.Second)
	nodeRVs := map[string]string{}
	leases := map[string]*coordinationv1.Lease{}
	for i := range clients * perClient {
		name := fmt.Sprintf("kubelet-%02d", i)
		var n corev1.Node
		mustCall(t, http.StatusCreated, http.MethodPost, srv.URL+"/api/v1/nodes", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, &n)
		var l coordinationv1.Lease
		mustCall(t, http.StatusCreated, http.MethodPost, leasesURL, leaseFor(name, base), &l)
		leases[name] = &l
	}
	for name := range leases {
		var n corev1.Node
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes/"+name, nil, &n)
		nodeRVs[name] = n.ResourceVersion
	}

	var (
		signalled atomic.Bool
		acked     atomic.Int64
		mu        sync.Mutex
		wg        sync.WaitGroup
		sent      []renewal
		failure   error
	)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	for w := range clients {
		mine := map[string]*coordinationv1.Lease{}
		for j := range perClient {
			name := fmt.Sprintf("kubelet-%02d", w*perClient+j)
			mine[name] = leases[name]
		}
		wg.Go(func() {
			for i := 1; ; i++ {
				name := fmt.Sprintf("kubelet-%02d", w*perClient+i%perClient)
				l := mine[name]
				r := renewal{node: name, renew: base.Add(time.Duration(i) * time.Millisecond)}
				mu.Lock()
				sent = append(sent, r)
				at := len(sent) - 1
				mu.Unlock()
				answered, err := renewLease(t.Context(), client, leasesURL, l, r.renew)
				if err != nil {
					if !signalled.Load() {
						mu.Lock()
						failure = errors.Join(failure, fmt.Errorf("client %d, renewal %d before the kill: %w", w, i, err))
						mu.Unlock()
					}
					return
				}
				mine[name] = answered
				rv, _ := strconv.ParseInt(answered.ResourceVersion, 10, 64)
				mu.Lock()
				sent[at].rv = rv
				mu.Unlock()
				acked.Add(1)
			}
		})
	}
	err := poll(acksWait, func() (bool, error) { return acked.Load() >= acksBeforeKill || srv.exited(), nil })
	if err == nil {
		requireGroupedCommits(t, srv.URL)
	}
	signalled.Store(true)
	if _, serr := srv.signal(syscall.SIGKILL, stopTimeout); serr != nil {
		t.Errorf("SIGKILL serve: %v", serr)
	}
	wg.Wait()
	if err != nil || failure != nil {
		t.Fatalf("%d renewals acknowledged before the kill: %v %v", acked.Load(), err, failure)
	}
	t.Logf("%d renewals acknowledged; killed with %d in flight", acked.Load(), len(sent)-int(acked.Load()))

	srv = startServe(t, serveOptions{DataDir: dataDir, Args: []string{"--reconcilers="}})
	leasesURL = srv.URL + "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
	logged := readLog(t, srv.URL)
	byPos := make(map[int64]auditEvent, len(logged))
	last := map[string]int64{}
	for _, e := range logged {
		byPos[e.Position] = e
		last[e.Stream] = e.Position
	}
	lastAcked, inFlight := map[string]renewal{}, map[string]renewal{}
	for _, r := range sent {
		if r.rv == 0 {
			inFlight[r.node] = r
			continue
		}
		if e, ok := byPos[r.rv]; !ok || e.Stream != "lease/kube-node-lease/"+r.node || e.Type != "LeaseRenewed" {
			t.Errorf("renewal of %s acknowledged at %d: in the log as %+v (found: %v), want its lease's LeaseRenewed", r.node, r.rv, e, ok)
		}
		if r.rv > lastAcked[r.node].rv {
			lastAcked[r.node] = r
		}
	}
	for name, rv := range nodeRVs {
		var l coordinationv1.Lease
		mustCall(t, http.StatusOK, http.MethodGet, leasesURL+"/"+name, nil, &l)
		got, want := l.Spec.RenewTime.Time, lastAcked[name].renew
		wasInFlight := inFlight[name].node != "" && got.Equal(inFlight[name].renew)
		if !got.Equal(want) && !wasInFlight {
			t.Errorf("%s: lease renewed at %v after the restart, want the last acknowledged %v (or the one in flight at the kill)", name, got, want)
		}
		if l.ResourceVersion != strconv.FormatInt(last["lease/kube-node-lease/"+name], 10) {
			t.Errorf("%s: lease at resourceVersion %s, the last event of its stream at %d", name, l.ResourceVersion, last["lease/kube-node-lease/"+name])
		}
		var n corev1.Node
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes/"+name, nil, &n)
		if n.ResourceVersion != rv {
			t.Errorf("node %s moved from resourceVersion %s to %s under its lease's renewals alone", name, rv, n.ResourceVersion)
		}
	}
	srv.stop()
	res := mustHerd(t, "replay", "--verify", "--data-dir", dataDir)
	if !strings.Contains(res.Stdout, "the live views equal a rebuild") {
		t.Errorf("replay --verify said %q, want that the live views equal a rebuild", res.Stdout)
	}
}

// leaseFor is the lease a kubelet creates for its node.
func leaseFor(node string, renew time.Time) coordinationv1.Lease {
	d := int32(40)
	return coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: node, Namespace: "kube-node-lease"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &node, LeaseDurationSeconds: &d,
			RenewTime: &metav1.MicroTime{Time: renew}},
	}
}

// renewLease PUTs l with renewTime renew and the resourceVersion it was
// last answered with, as the kubelet's lease controller does, and returns
// herd's answer, or an error when there is none (the kill cut it off).
func renewLease(ctx context.Context, c *http.Client, leasesURL string, l *coordinationv1.Lease, renew time.Time) (*coordinationv1.Lease, error) {
	next := l.DeepCopy()
	next.Spec.RenewTime = &metav1.MicroTime{Time: renew}
	data, err := json.Marshal(next)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, leasesURL+"/"+l.Name, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, readErr := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("PUT lease %s: %s: %s", l.Name, resp.Status, body)
	}
	var out coordinationv1.Lease
	if readErr != nil || json.Unmarshal(body, &out) != nil || out.Name != l.Name {
		return nil, fmt.Errorf("PUT lease %s: answer cut off: %v", l.Name, readErr) //nolint:errorlint // readErr is nil when the body read whole but is not JSON
	}
	return &out, nil
}
