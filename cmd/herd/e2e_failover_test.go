package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"herd/events/pgtest"
)

// TestPrimaryDiesStandbyPromotedNoAcknowledgedWriteLost runs herd serve on
// a PostgreSQL primary with a synchronous streaming standby, through a
// multi-host URL that picks whichever of the two takes writes. Writers
// create ConfigMaps without pause; the primary is killed (SIGQUIT,
// PostgreSQL's immediate stop) and the standby promoted. While no
// primary answers, herd says 503 with Retry-After and stays up; after the
// promotion it writes to the new primary by itself. Every ConfigMap herd
// acknowledged with 201 is there afterwards, and replay --verify finds the
// views equal to a rebuild of the log.
func TestPrimaryDiesStandbyPromotedNoAcknowledgedWriteLost(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	primary, url := pgtest.Private(t)
	standby := primary.Standby(t)
	multi := strings.Replace(url, fmt.Sprintf("127.0.0.1:%d", primary.Port()),
		fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", primary.Port(), standby.Port()), 1) + "&target_session_attrs=read-write"
	t.Logf("phase: standby ready at %s", time.Since(t0))
	srv := startServe(t, serveOptions{Args: []string{"--database", multi}})

	var (
		mu       sync.Mutex
		acked    []string
		statuses = map[int]int{}
		next     atomic.Int64
		stop     = make(chan struct{})
		wg       sync.WaitGroup
	)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("cm-%05d", next.Add(1))
				resp, body := send(t, http.MethodPost, srv.URL+"/api/v1/namespaces/default/configmaps", configMapBody(name, "1"))
				mu.Lock()
				statuses[resp.StatusCode]++
				if resp.StatusCode == http.StatusCreated {
					acked = append(acked, name)
				}
				mu.Unlock()
				switch resp.StatusCode {
				case http.StatusCreated:
				case http.StatusServiceUnavailable:
					if resp.Header.Get("Retry-After") == "" {
						t.Errorf("503 without Retry-After: %s", body)
					}
					time.Sleep(50 * time.Millisecond)
				default:
					t.Errorf("create %s: %d %s", name, resp.StatusCode, body)
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	ackedCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	waitAcked := func(n int) {
		t.Helper()
		eventually(t, 60*time.Second, func() error {
			if got := ackedCount(); got < n {
				return fmt.Errorf("%d writes acknowledged, want %d", got, n)
			}
			return nil
		})
	}
	t.Logf("phase: serving at %s", time.Since(t0))
	waitAcked(50)
	t.Logf("phase: 50 acked at %s", time.Since(t0))
	if err := primary.Stop("immediate"); err != nil {
		t.Fatal(err)
	}
	beforePromotion := ackedCount()
	time.Sleep(500 * time.Millisecond) // writers meet a database with no primary
	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	t.Logf("phase: promoted at %s", time.Since(t0))
	waitAcked(beforePromotion + 50)
	t.Logf("phase: 50 more acked at %s", time.Since(t0))
	close(stop)
	wg.Wait()
	if srv.exited() {
		t.Fatalf("herd serve exited during the failover:\n%s", srv.output.String())
	}

	mu.Lock()
	defer mu.Unlock()
	t.Logf("answers during the run: %v; %d acknowledged", statuses, len(acked))
	if statuses[http.StatusServiceUnavailable] == 0 {
		t.Error("no write met the database without a primary: the test did not test the gap")
	}
	var items struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/namespaces/default/configmaps", nil, &items)
	stored := map[string]bool{}
	for _, it := range items.Items {
		stored[it.Metadata.Name] = true
	}
	for _, name := range acked {
		if !stored[name] {
			t.Errorf("ConfigMap %s was acknowledged and is gone after the failover", name)
		}
	}
	t.Logf("phase: checked at %s", time.Since(t0))
	defer func() { t.Logf("phase: verified at %s", time.Since(t0)) }()
	res := herd(t, nil, "replay", "--verify", "--database", strings.Replace(multi, fmt.Sprintf("127.0.0.1:%d,", primary.Port()), "", 1))
	if res.Code != 0 {
		t.Errorf("replay --verify after the failover: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}
