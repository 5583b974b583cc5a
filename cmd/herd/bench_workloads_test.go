package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// benchFleet registers n linux agent nodes (room for 32 pods each) on
// herd at base and keeps them heartbeating every 5 s until the benchmark
// ends, so that they stay Ready; the pods bound to them run on herd's
// mock runtime.
func benchFleet(b *testing.B, base string, n int) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	b.Cleanup(func() { cancel(); wg.Wait() })
	c := &http.Client{Timeout: 10 * time.Second}
	beat := func(name string) error {
		metrics := map[string]any{"metrics": map[string]any{
			"cpuCount": 8, "cpuPercent": 20.0, "load1": 0.5, "load5": 0.5, "load15": 0.5,
			"memoryTotalBytes": int64(32 << 30), "memoryAvailableBytes": int64(24 << 30),
			"diskTotalBytes": int64(100 << 30), "diskAvailableBytes": int64(60 << 30), "pidsMax": 32768, "pidsCurrent": 300, "activeJobs": 0,
		}}
		return benchCall(ctx, c, http.MethodPost, base+"/apis/herd.dev/v1/nodes/"+name+"/heartbeat", metrics)
	}
	for i := range n {
		name := fmt.Sprintf("bench-%03d", i)
		node := map[string]any{
			"metadata": map[string]any{"name": name, "labels": map[string]string{"herd.dev/kind": "linux"}},
			"status": map[string]any{
				"capacity":    map[string]string{"cpu": "8", "memory": "32Gi", "pods": "32"},
				"allocatable": map[string]string{"cpu": "8", "memory": "32Gi", "pods": "32"},
				"nodeInfo":    map[string]string{"kubeletVersion": "herd-agent/bench", "osImage": "linux", "architecture": "amd64", "operatingSystem": "linux"},
			},
		}
		if err := benchCall(ctx, c, http.MethodPut, base+"/apis/herd.dev/v1/nodes/"+name+"/registration", node); err != nil {
			b.Fatal(err)
		}
		if err := beat(name); err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(5 * time.Second)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					_ = beat(name) // a missed beat shows as the node going NotReady, which the benchmark would see
				}
			}
		}()
	}
}

func benchCall(ctx context.Context, c *http.Client, method, url string, body any) error {
	req, err := newJSONRequest(method, url, body)
	if err != nil {
		return err
	}
	resp, err := c.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, msg)
	}
	return nil
}

// rolledOut waits until Deployment name has replicas pods of its current
// template available and no others, as kubectl rollout status says it,
// polling every 50 ms, and returns how long that took from start.
func rolledOut(b *testing.B, cs kubernetes.Interface, name string, replicas int32, start time.Time) time.Duration {
	b.Helper()
	deadline := start.Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		d, err := cs.AppsV1().Deployments("default").Get(b.Context(), name, metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		st := d.Status
		if d.Generation <= st.ObservedGeneration && st.UpdatedReplicas == replicas && st.Replicas == replicas && st.AvailableReplicas == replicas {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatalf("deployment %s not rolled out within 5 minutes", name)
	return 0
}

// BenchmarkDeployment1000Over100Nodes measures what a user of herd serve
// waits for, over HTTP with client-go (protobuf): a Deployment of 1,000
// replicas created over 100 Ready nodes until all 1,000 pods are
// available (Running and Ready on the mock runtime), then a new image
// rolled out with maxSurge 25% until the rollout is complete, then the
// Deployment deleted until its pods are gone. The targets: under
// 10 s and under 30 s.
//
//	go test -run '^$' -bench Deployment1000 -benchtime 1x ./cmd/herd/
//
// With HERD_BENCH_CPUPROFILE=FILE, herd serves its profiles and the
// rollout's first 20 s of CPU are written to FILE (go tool pprof FILE).
func BenchmarkDeployment1000Over100Nodes(b *testing.B) {
	profile := os.Getenv("HERD_BENCH_CPUPROFILE")
	var args []string
	if profile != "" {
		args = append(args, "--profiling")
	}
	srv := startServe(b, serveOptions{Args: args})
	benchFleet(b, srv.URL, 100)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: 1000, Burst: 1000})
	if err != nil {
		b.Fatal(err)
	}
	const replicas = 1000
	var created, rolled, deleted time.Duration
	for i := range b.N {
		name := fmt.Sprintf("web-%d", i)
		n, surge, unavailable := int32(replicas), intstr.FromString("25%"), intstr.FromString("25%")
		labels := map[string]string{"app": name}
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DeploymentSpec{
				Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}}},
			},
		}
		start := time.Now()
		if _, err := cs.AppsV1().Deployments("default").Create(b.Context(), d, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		created += rolledOut(b, cs, name, replicas, start)

		profiled := make(chan error, 1)
		if profile != "" {
			go func() { profiled <- benchProfile(srv.URL, profile, 20*time.Second) }()
		}
		start = time.Now()
		patch := `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"web:2"}]}}}}`
		if _, err := cs.AppsV1().Deployments("default").Patch(b.Context(), name, "application/strategic-merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
			b.Fatal(err)
		}
		rolled += rolledOut(b, cs, name, replicas, start)
		if profile != "" {
			if err := <-profiled; err != nil {
				b.Fatal(err)
			}
			profile = ""
		}

		start = time.Now()
		if err := cs.AppsV1().Deployments("default").Delete(b.Context(), name, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		for {
			pods, err := cs.CoreV1().Pods("default").List(b.Context(), metav1.ListOptions{LabelSelector: "app=" + name})
			if err != nil {
				b.Fatal(err)
			}
			if len(pods.Items) == 0 {
				break
			}
			if time.Since(start) > 5*time.Minute {
				b.Fatalf("%d pods of a deleted deployment left after 5 minutes", len(pods.Items))
			}
			time.Sleep(100 * time.Millisecond)
		}
		deleted += time.Since(start)
	}
	b.ReportMetric(created.Seconds()/float64(b.N), "s-to-available")
	b.ReportMetric(rolled.Seconds()/float64(b.N), "s-to-rolled-out")
	b.ReportMetric(deleted.Seconds()/float64(b.N), "s-to-deleted")
}

// benchProfile writes herd's CPU profile over the next d to path.
func benchProfile(base, path string, d time.Duration) error {
	resp, err := http.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Seconds()))) //nolint:noctx // bounded by the profile's own seconds
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: %s", resp.Status)
	}
	f, err := os.Create(path) //nolint:gosec // the path the benchmark's runner gave
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
