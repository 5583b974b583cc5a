package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Silence is how late herd marked the nodes that fell silent: for each,
// its Ready condition's lastTransitionTime to Unknown against its
// lastHeartbeatTime (or, with --lease, its lease's renewTime, if later)
// plus the grace period, all as herd reports them (Kubernetes' times are
// to the second, so each lateness is too).
type Silence struct {
	// Silent nodes stopped heartbeating; Marked of them were seen with
	// Ready Unknown before the deadline.
	Silent int `json:"silent"`
	Marked int `json:"marked"`
	// GracePeriodSeconds is the grace the lateness is measured against.
	GracePeriodSeconds float64 `json:"gracePeriodSeconds"`
	// LatenessP50, LatenessP99 and LatenessMax are in seconds over the
	// marked nodes (exact, from the sorted latenesses); negative is early.
	LatenessP50 float64 `json:"latenessP50Seconds"`
	LatenessP99 float64 `json:"latenessP99Seconds"`
	LatenessMax float64 `json:"latenessMaxSeconds"`
	// WaitedSeconds is how long the wait took; TimedOut is true when
	// some silent node was still not marked at --fall-silent-timeout.
	WaitedSeconds float64 `json:"waitedSeconds"`
	TimedOut      bool    `json:"timedOut,omitempty"`
	// HeartbeatingNotReady counts nodes that kept heartbeating but were
	// not Ready at the last look: herd marked them wrongly, or late.
	HeartbeatingNotReady int `json:"heartbeatingNotReady"`
	// Err is why the node list could not be read, if it could not.
	Err string `json:"error,omitempty"`
}

// listedNode is the part of a listed Node the wait reads.
type listedNode struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Status struct {
		Conditions []struct {
			Type               string    `json:"type"`
			Status             string    `json:"status"`
			LastHeartbeatTime  time.Time `json:"lastHeartbeatTime"`
			LastTransitionTime time.Time `json:"lastTransitionTime"`
		} `json:"conditions"`
	} `json:"status"`
}

// listPage is how many nodes one list request asks for.
const listPage = 500

// watchSilence reads the node list every ListInterval, from earliest on,
// until every silent node's Ready is Unknown since the silence began, or
// the deadline. It reads from the first server: replicas share one
// database, so any of them lists every node. No node can be marked before
// earliest — a grace period after the first registration, its first
// heartbeat — so the lists, which load herd too, start then.
func (g *generator) watchSilence(ctx context.Context, silent []int, since, earliest time.Time) Silence {
	cfg := g.cfg
	s := Silence{Silent: len(silent), GracePeriodSeconds: cfg.GracePeriod.Seconds()}
	isSilent := make(map[string]bool, len(silent))
	for _, i := range silent {
		isSilent[g.names[i]] = true
	}
	ours := make(map[string]bool, len(g.names))
	for _, n := range g.names {
		ours[n] = true
	}
	// Its own connection, so that the wait never queues behind the
	// heartbeats it waits among.
	transport := newTransport(cfg, 1)
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: cfg.Timeout}
	// Times are to the second: a transition in the second the silence
	// began counts.
	from := since.Truncate(time.Second)
	late := map[string]time.Duration{}
	deadline := since.Add(cfg.FallSilentTimeout)
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(earliest)):
	case <-time.After(time.Until(deadline)):
	}
	tick := time.NewTicker(cfg.ListInterval)
	defer tick.Stop()
	// A node that keeps a lease is last heard from at its lease's last
	// renewal, which its Node does not show (its conditions' heartbeat
	// times move only with its status reports). The silent nodes renew no
	// more, so one read of their leases once the silence began is theirs.
	var renewed map[string]time.Time
	if cfg.Lease {
		var err error
		if renewed, err = g.listLeaseRenewals(ctx, hc); err != nil {
			s.Err = fmt.Sprintf("read the node leases: %v", err)
			return s
		}
	}
	for {
		nodes, err := g.listNodes(ctx, hc)
		if err != nil {
			s.Err = fmt.Sprintf("read the node list: %v", err)
			break
		}
		s.HeartbeatingNotReady = 0
		for _, n := range nodes {
			name := n.Metadata.Name
			for _, c := range n.Status.Conditions {
				if c.Type != "Ready" {
					continue
				}
				switch {
				case isSilent[name] && c.Status == "Unknown" && !c.LastTransitionTime.Before(from):
					if _, seen := late[name]; !seen {
						heard := c.LastHeartbeatTime
						if r := renewed[name]; r.After(heard) {
							heard = r.Truncate(time.Second)
						}
						late[name] = c.LastTransitionTime.Sub(heard.Add(cfg.GracePeriod))
					}
				case ours[name] && !isSilent[name] && c.Status != "True":
					s.HeartbeatingNotReady++
				}
			}
		}
		if len(late) == len(silent) {
			break
		}
		if !time.Now().Before(deadline) {
			s.TimedOut = true
			break
		}
		select {
		case <-ctx.Done():
			s.Err = ctx.Err().Error()
		case <-tick.C:
			continue
		}
		break
	}
	s.WaitedSeconds = time.Since(since).Seconds()
	s.Marked = len(late)
	if len(late) > 0 {
		s.LatenessP50, s.LatenessP99, s.LatenessMax = spread(slices.Sorted(maps.Values(late)))
	}
	return s
}

// spread is the median, the 99th percentile and the maximum of sorted
// latenesses in seconds, by nearest rank: the smallest lateness at least
// that share of the nodes had.
func spread(sorted []time.Duration) (p50, p99, maxi float64) {
	at := func(q float64) float64 {
		return sorted[min(max(int(math.Ceil(q*float64(len(sorted))))-1, 0), len(sorted)-1)].Seconds()
	}
	return at(0.50), at(0.99), sorted[len(sorted)-1].Seconds()
}

// listedLease is the part of a listed Lease the wait reads.
type listedLease struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		RenewTime *time.Time `json:"renewTime"`
	} `json:"spec"`
}

// listLeaseRenewals reads the renew time of every lease in
// kube-node-lease, by name.
func (g *generator) listLeaseRenewals(ctx context.Context, hc *http.Client) (map[string]time.Time, error) {
	leases, err := listAll[listedLease](ctx, g.cfg, hc, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases")
	if err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(leases))
	for _, l := range leases {
		if l.Spec.RenewTime != nil {
			out[l.Metadata.Name] = *l.Spec.RenewTime
		}
	}
	return out, nil
}

// listNodes reads every node, a page at a time.
func (g *generator) listNodes(ctx context.Context, hc *http.Client) ([]listedNode, error) {
	return listAll[listedNode](ctx, g.cfg, hc, "/api/v1/nodes")
}

// listAll reads every item of the list at path, a page at a time.
func listAll[T any](ctx context.Context, cfg Config, hc *http.Client, path string) ([]T, error) {
	var all []T
	cont := ""
	for {
		q := url.Values{"limit": {fmt.Sprint(listPage)}}
		if cont != "" {
			q.Set("continue", cont)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Servers[0], "/")+path+"?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if cfg.Token != "" {
			req.Header.Set("Authorization", "Bearer "+cfg.Token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		var page struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []T `json:"items"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		if err != nil {
			return nil, fmt.Errorf("GET %s: %w", path, err)
		}
		all = append(all, page.Items...)
		if cont = page.Metadata.Continue; cont == "" {
			return all, nil
		}
	}
}
