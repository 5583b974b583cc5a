package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/conversions"
	"herd/adapters/rp2040/picosim"
)

// demoInterval is how often a simulated node reports: herd's agents and the
// Pico firmware both report every 10 s.
const demoInterval = 10 * time.Second

// DemoOption runs cfg.Demo simulated nodes against the API once it
// listens: a mix of linux and illumos agents posting metrics, and
// simulated Picos (adapters/rp2040/picosim) sending what the firmware
// sends, byte for byte — addresses, allocatable, System Info — so that an
// operator sees what a real board produces. They go through the real
// HTTP API, exactly as real ones would. With Demo 0 it does nothing.
func DemoOption(cfg Config) fx.Option {
	if cfg.Demo <= 0 {
		return fx.Options()
	}
	return fx.Invoke(func(lc fx.Lifecycle, h *HTTPServer, clk clock.WithTicker, log *zap.Logger) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		lc.Append(fx.Hook{
			OnStart: func(context.Context) error {
				for i := range cfg.Demo {
					wg.Add(1)
					go func() {
						defer wg.Done()
						runDemoNode(ctx, h.URL(), i, clk, log.Named("demo"))
					}()
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					runDemoWorkload(ctx, h.URL(), cfg.Demo, log.Named("demo"))
				}()
				replicas, shippers := demoPods(cfg.Demo)
				log.Info("demo fleet started", zap.Int("nodes", cfg.Demo), zap.Int("pods", replicas+shippers),
					zap.Int("deployment_pods", replicas), zap.Int("daemonset_pods", shippers))
				return nil
			},
			OnStop: func(context.Context) error {
				// The demo's nodes stand for machines that go on running
				// while herd is down, as a real fleet does: they fall
				// silent and say no goodbye, so that herd back on its data
				// finds them as they were and its restart is none of
				// theirs (a goodbye would mark each Ready False and taint
				// it not-ready NoExecute, and a herd down longer than its
				// pods tolerate that would evict them all as it came back).
				cancel()
				wg.Wait()
				return nil
			},
		})
	})
}

// runDemoNode runs demo node i on herd's clock, as a test's fake one
// moves it (the wall clock in herd serve).
func runDemoNode(ctx context.Context, base string, i int, clk clock.WithTicker, log *zap.Logger) {
	name, kind := demoNode(i)
	if kind == "rp2040" {
		runDemoPico(ctx, base, name, clk, log)
		return
	}
	runDemoAgent(ctx, base, i, demoInterval, clk, log)
}

// runDemoAgent is a simulated herd agent for demo node i, heartbeating
// every interval until ctx ends. When an operator deletes its node
// (kubectl delete node), the next heartbeat is 404 and the agent
// registers again, as a real agent does when it restarts, and says so
// once, rather than failing every heartbeat until herd restarts.
func runDemoAgent(ctx context.Context, base string, i int, interval time.Duration, clk clock.WithTicker, log *zap.Logger) {
	name, kind := demoNode(i)
	c := &http.Client{Timeout: 5 * time.Second}
	register := func() {
		err := demoCall(ctx, c, http.MethodPut, base+"/apis/herd.dev/v1/nodes/"+name+"/registration", "application/json", agentNode(name, kind))
		if err != nil && ctx.Err() == nil {
			log.Warn("demo node could not register", zap.String("node", name), zap.Error(err))
		}
	}
	// A node herd already knows carries on reporting: herd was down, not
	// the machine, so it registers only when herd has no such node.
	if !demoNodeKnown(ctx, c, base, name) {
		register()
	}
	t := clk.NewTicker(interval)
	defer t.Stop()
	for {
		jobs, err := demoRunningPods(ctx, c, base, name)
		if err != nil && ctx.Err() == nil {
			log.Warn("demo node could not count its pods", zap.String("node", name), zap.Error(err))
		}
		err = demoCall(ctx, c, http.MethodPost, base+"/apis/herd.dev/v1/nodes/"+name+"/heartbeat", "application/json", demoMetrics(i, jobs, clk.Now()))
		var status demoStatusError
		switch {
		case errors.As(err, &status) && status.code == http.StatusNotFound:
			log.Info("demo node was deleted: it registers again, as its agent would on a restart", zap.String("node", name))
			register()
		case err != nil && ctx.Err() == nil:
			log.Warn("demo heartbeat failed", zap.String("node", name), zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
	}
}

// demoNodeKnown says whether herd already has node name; an error counts
// as not known, and the registration that follows says what is wrong.
func demoNodeKnown(ctx context.Context, c *http.Client, base, name string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/nodes/"+name, nil)
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// demoStatusError is an answer of herd's that the demo did not want.
type demoStatusError struct {
	method, url, status string
	code                int
}

func (e demoStatusError) Error() string { return fmt.Sprintf("%s %s: %s", e.method, e.url, e.status) }

// runDemoPico runs one simulated board until ctx ends: its firmware's
// registration, status reports and ConfigMap reads, and its port-10250
// endpoint on loopback for herd's probe. The firmware speaks plain HTTP
// only, so with the API on TLS the demo has no boards.
func runDemoPico(ctx context.Context, base, name string, clk clock.WithTicker, log *zap.Logger) {
	if !strings.HasPrefix(base, "http://") {
		log.Warn("the demo's Pico boards speak plain HTTP only, and the API serves TLS: no boards", zap.String("node", name))
		return
	}
	p, err := picosim.New(picosim.Config{Name: name, Server: base, KubeletListen: "127.0.0.1:0", NoHistory: true})
	if err != nil {
		log.Warn("demo board could not start", zap.String("node", name), zap.Error(err))
		return
	}
	defer func() { _ = p.Close() }() // its kubelet endpoint; the board has nothing else to flush
	_ = p.Run(ctx, clk, picosim.Timing{})
}

// demoPodsPerNode is how many pods the demo asks for per simulated node.
const demoPodsPerNode = 2

// demoApps are the demo's workloads, one Deployment each, sharing the
// demo's pods between them.
var demoApps = []string{"web", "cache", "report"}

// runDemoWorkload creates namespace "demo" and the demo's Deployments
// and DaemonSet in it, once every demo node is Ready (or demoReadyWait has passed): each
// Deployment's ReplicaSet makes the pods, herd's scheduler spreads them
// over the nodes, and a pod that a drain evicts is made again and placed
// on another node. A restart of the demo finds them already there (409,
// which is fine).
func runDemoWorkload(ctx context.Context, base string, nodes int, log *zap.Logger) {
	c := &http.Client{Timeout: 5 * time.Second}
	if err := waitDemoNodesReady(ctx, c, base, nodes); err != nil {
		if ctx.Err() != nil {
			return
		}
		log.Warn("creating the demo's workloads before every demo node is Ready", zap.Error(err))
	}
	ns := map[string]any{"metadata": map[string]any{"name": "demo", "labels": map[string]string{"herd.dev/demo": "true"}}}
	if err := demoCall(ctx, c, http.MethodPost, base+"/api/v1/namespaces", "application/json", ns); err != nil && ctx.Err() == nil {
		log.Warn("demo namespace could not be created", zap.Error(err))
	}
	pods := demoPodsPerNode * nodes
	for i, app := range demoApps {
		// The pods shared out in turn: web gets the first, cache the
		// second, report the third, web the fourth...
		replicas := pods / len(demoApps)
		if i < pods%len(demoApps) {
			replicas++
		}
		labels := map[string]string{"app": app, "herd.dev/demo": "true"}
		deployment := map[string]any{
			"metadata": map[string]any{"name": app, "labels": labels},
			"spec": map[string]any{
				"replicas": replicas,
				"selector": map[string]any{"matchLabels": map[string]string{"app": app}},
				"template": map[string]any{
					"metadata": map[string]any{"labels": labels},
					"spec": map[string]any{"containers": []map[string]any{{
						"name": app, "image": "demo/" + app,
						"resources": map[string]any{"requests": map[string]string{"cpu": "250m", "memory": "256Mi"}},
					}}},
				},
			},
		}
		if err := demoCall(ctx, c, http.MethodPost, base+"/apis/apps/v1/namespaces/demo/deployments", "application/json", deployment); err != nil && ctx.Err() == nil {
			log.Warn("demo Deployment could not be created", zap.String("deployment", app), zap.Error(err))
		}
		if err := waitDemoPlaced(ctx, c, base, app, replicas); err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Warn("creating the demo's next workload before this one's pods are placed", zap.String("deployment", app), zap.Error(err))
		}
	}
	if err := demoCall(ctx, c, http.MethodPost, base+"/apis/apps/v1/namespaces/demo/daemonsets", "application/json", demoDaemonSet()); err != nil && ctx.Err() == nil {
		log.Warn("demo DaemonSet could not be created", zap.String("daemonset", demoShipper), zap.Error(err))
	}
}

// demoPods is how many pods the demo runs on its nodes once its
// workloads are placed: the Deployments' replicas, and the DaemonSet's
// one pod on each node that runs pods (not the Picos).
func demoPods(nodes int) (replicas, shippers int) {
	for i := range nodes {
		if _, kind := demoNode(i); kind != "rp2040" {
			shippers++
		}
	}
	return demoPodsPerNode * nodes, shippers
}

// demoShipper is the demo's DaemonSet: a pod on every node that runs
// pods (the agents' linux and illumos nodes; the Picos offer none).
const demoShipper = "log-shipper"

func demoDaemonSet() map[string]any {
	labels := map[string]string{"app": demoShipper, "herd.dev/demo": "true"}
	return map[string]any{
		"metadata": map[string]any{"name": demoShipper, "labels": labels},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]string{"app": demoShipper}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"containers": []map[string]any{{
					"name": demoShipper, "image": "demo/" + demoShipper,
					"resources": map[string]any{"requests": map[string]string{"cpu": "50m", "memory": "64Mi"}},
				}}},
			},
		},
	}
}

func agentNode(name, kind string) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"name": name, "labels": map[string]string{conversions.LabelKind: kind, "herd.dev/demo": "true"}},
		"status": map[string]any{
			"capacity":    map[string]string{"cpu": "4", "memory": "8Gi", "pods": "16"},
			"allocatable": map[string]string{"cpu": "3500m", "memory": "7Gi", "pods": "16"},
			"nodeInfo":    map[string]string{"kubeletVersion": "herd-agent/dev", "osImage": kind, "architecture": "amd64", "operatingSystem": kind},
		},
	}
}

// demoMetrics makes up a plausible host running jobs pods at now. Its
// figures wander a little, well clear of the thresholds; every seventh
// node from the fourth (demo-linux-03) runs short of memory for two
// minutes in every twenty, and every fifth from the second is busy for
// three minutes in every fifteen, so that conditions move, as episodes an
// operator can follow rather than noise that flips them on every other
// heartbeat. demo-linux-00, the node the quickstart drains, never has
// memory pressure: its NoSchedule taint would keep the demo's pods off
// it, and the drain would have nothing to move.
func demoMetrics(i, jobs int, now time.Time) map[string]any {
	const gib = 1 << 30
	minute := int(now.Unix()/60) + i // nodes take their turns apart
	avail := 4*gib + rand.Int64N(gib) - gib/2
	if i%7 == 3 && minute%20 < 2 {
		avail = gib / 2
	}
	cpu := 20 + rand.Float64()*20
	if i%5 == 1 && minute%15 < 3 {
		cpu = 85 + rand.Float64()*10
	}
	return map[string]any{"metrics": map[string]any{
		"cpuCount": 4, "cpuPercent": cpu, "load1": rand.Float64() * 3, "load5": 1.0, "load15": 0.8,
		"memoryTotalBytes": int64(8 * gib), "memoryAvailableBytes": avail,
		"diskTotalBytes": int64(100 * gib), "diskAvailableBytes": int64(60 * gib),
		"pidsMax": 32768, "pidsCurrent": 300 + rand.IntN(200), "activeJobs": jobs,
	}}
}

func demoCall(ctx context.Context, c *http.Client, method, url, contentType string, body any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "herd-demo")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusConflict {
		return demoStatusError{method: method, url: url, status: resp.Status, code: resp.StatusCode}
	}
	return nil
}
