package main

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// retryPause is how long a writer pauses after a write that was not
// acknowledged, as a client backing off would.
const retryPause = 50 * time.Millisecond

// configMapWriters create ConfigMaps without pause through one or more
// herd replicas, as clients that retry elsewhere would, and remember
// which ones herd acknowledged (201) and what every answer was.
type configMapWriters struct {
	t        *testing.T
	mu       sync.Mutex
	acked    []string
	statuses map[int]int
	next     atomic.Int64
	stopping chan struct{}
	wg       sync.WaitGroup
}

// startConfigMapWriters starts n writers per URL. A 503 must carry
// Retry-After; a failed connection (a replica killed) is counted as 0.
// Any other answer but 201 fails the test.
func startConfigMapWriters(t *testing.T, n int, urls func() []string) *configMapWriters {
	w := &configMapWriters{t: t, statuses: map[int]int{}, stopping: make(chan struct{})}
	for i := range n {
		w.wg.Go(func() {
			for {
				select {
				case <-w.stopping:
					return
				default:
				}
				us := urls()
				base := us[i%len(us)]
				name := fmt.Sprintf("cm-%05d", w.next.Add(1))
				code, retryAfter, body := w.create(base, name)
				w.mu.Lock()
				w.statuses[code]++
				if code == http.StatusCreated {
					w.acked = append(w.acked, name)
				}
				w.mu.Unlock()
				switch code {
				case http.StatusCreated:
					continue
				case http.StatusServiceUnavailable:
					if retryAfter == "" {
						t.Errorf("503 without Retry-After: %s", body)
					}
				case 0:
				default:
					t.Errorf("create %s through %s: %d %s", name, base, code, body)
				}
				// A client's pause before it retries: not a wait for
				// anything, so no deadline to wait on.
				time.Sleep(retryPause)
			}
		})
	}
	return w
}

// create posts one ConfigMap; code 0 is a request that got no answer.
func (w *configMapWriters) create(base, name string) (code int, retryAfter string, body []byte) {
	req, err := newJSONRequest(http.MethodPost, base+"/api/v1/namespaces/default/configmaps", configMapBody(name, "1"))
	if err != nil {
		w.t.Error(err)
		return 0, "", nil
	}
	resp, err := apiClient.Do(req)
	if err != nil {
		return 0, "", []byte(err.Error())
	}
	defer resp.Body.Close()
	buf := make([]byte, 512)
	n, _ := resp.Body.Read(buf)
	return resp.StatusCode, resp.Header.Get("Retry-After"), buf[:n]
}

// count is how many writes herd acknowledged so far.
func (w *configMapWriters) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

// waitAcked waits until n writes were acknowledged in all.
func (w *configMapWriters) waitAcked(n int) {
	w.t.Helper()
	eventually(w.t, 60*time.Second, func() error {
		if got := w.count(); got < n {
			return fmt.Errorf("%d writes acknowledged, want %d", got, n)
		}
		return nil
	})
}

// waitAnswered waits until some write was answered with code.
func (w *configMapWriters) waitAnswered(code int) {
	w.t.Helper()
	eventually(w.t, 60*time.Second, func() error {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.statuses[code] == 0 {
			return fmt.Errorf("no write answered %d yet: %v", code, w.statuses)
		}
		return nil
	})
}

// stop stops the writers and returns every answer's count.
func (w *configMapWriters) stop() map[int]int {
	close(w.stopping)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Logf("answers during the run: %v; %d acknowledged", w.statuses, len(w.acked))
	return w.statuses
}

// checkStored requires every acknowledged ConfigMap to be listed by the
// herd at base.
func (w *configMapWriters) checkStored(base string) {
	w.t.Helper()
	var items struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	mustCall(w.t, http.StatusOK, http.MethodGet, base+"/api/v1/namespaces/default/configmaps", nil, &items)
	stored := map[string]bool{}
	for _, it := range items.Items {
		stored[it.Metadata.Name] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, name := range w.acked {
		if !stored[name] {
			w.t.Errorf("ConfigMap %s was acknowledged and is gone", name)
		}
	}
}
