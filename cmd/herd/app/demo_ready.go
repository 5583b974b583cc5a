package app

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// demoReadyWait bounds how long the demo's pods wait for every demo node
// to be Ready: on a loaded machine the agents take longer to start, and
// pods created before a node is Ready never land on it (the quickstart
// then finds no pod to drain on demo-linux-00). Past it the pods are
// created anyway, on the nodes that are Ready.
const demoReadyWait = 30 * time.Second

// waitDemoNodesReady waits until nodes demo nodes are Ready, polling the
// API, for at most demoReadyWait.
func waitDemoNodesReady(ctx context.Context, c *http.Client, base string, nodes int) error {
	deadline := time.Now().Add(demoReadyWait)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		ready, err := demoNodesReady(ctx, c, base)
		if err == nil && ready >= nodes {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("the demo nodes after %s: %w", demoReadyWait, err)
			}
			return fmt.Errorf("%d of %d demo nodes Ready after %s", ready, nodes, demoReadyWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// demoNodesReady counts the demo's nodes whose Ready condition is True:
// those named demo-*, agents and Pico boards alike (a board registers
// itself with the firmware's labels, not the demo's).
func demoNodesReady(ctx context.Context, c *http.Client, base string) (int, error) {
	var list corev1.NodeList
	if err := demoList(ctx, c, base+"/api/v1/nodes", &list); err != nil {
		return 0, fmt.Errorf("list the demo nodes: %w", err)
	}
	n := 0
	for _, node := range list.Items {
		if !strings.HasPrefix(node.Name, "demo-") {
			continue
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				n++
			}
		}
	}
	return n, nil
}

// waitDemoPlaced waits until the demo's Deployment app has its replicas
// pods, each placed on a node, polling the API, for at most
// demoReadyWait. The demo creates its workloads one after the other once
// the one before is placed, as an operator would: pods of several
// workloads pending at once are placed in whichever order herd's
// reconcilers happen to reach them, which no replay of the log (herd
// what-if) can tell, while one workload's pods placed before the next
// arrives are placed the same every time.
func waitDemoPlaced(ctx context.Context, c *http.Client, base, app string, replicas int) error {
	deadline := time.Now().Add(demoReadyWait)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var list corev1.PodList
		err := demoList(ctx, c, base+"/api/v1/namespaces/demo/pods?labelSelector=app%3D"+app, &list)
		placed := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				placed++
			}
		}
		if err == nil && placed >= replicas {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("the pods of Deployment %s after %s: %w", app, demoReadyWait, err)
			}
			return fmt.Errorf("%d of the %d pods of Deployment %s placed after %s", placed, replicas, app, demoReadyWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
