package httpapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/events"
	"herd/events/eventstest"
)

// heldReads is the log with its audit queries held: each takes a
// connection of the database pool, as a query scanning a long log does,
// says so on entered, and keeps it until release is closed or its
// context ends; then it runs the real query with that context.
type heldReads struct {
	events.Log
	db      *sql.DB
	entered chan struct{}
	release chan struct{}
}

func (h heldReads) Query(ctx context.Context, f events.Filter) ([]events.Record, error) {
	conn, err := h.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	h.entered <- struct{}{}
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	_ = conn.Close()
	return h.Log.Query(ctx, f)
}

// TestHeartbeatsKeepTheirShareWhileViewersRead: viewers reading the
// audit log as fast as they can take at most their share of herd's
// reads (and so of its database connections); the rest are refused with
// 429 and Retry-After, and a node's heartbeat over HTTP still goes
// through while every admitted read holds a connection.
func TestHeartbeatsKeepTheirShareWhileViewersRead(t *testing.T) {
	api := newTestAPI(t, nil)
	const share, viewers = 2, 8
	api.reads = make(chan struct{}, share)
	api.cfg.ReadTimeout = time.Hour // the reads end when released, not before the heartbeat
	held := heldReads{Log: api.Log, db: api.store.DB(), entered: make(chan struct{}, viewers), release: make(chan struct{})}
	api.Log = held
	base := api.serve(t).URL
	release := sync.OnceFunc(func() { close(held.release) })
	t.Cleanup(release) // before the server closes, should the test fail
	mustSend(t, nil, base, 201, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")})

	type result struct {
		code       int
		retryAfter string
	}
	results := make(chan result, viewers)
	for range viewers {
		go func() {
			r, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/apis/herd.dev/v1/auditevents?actor=alice", nil)
			if err != nil {
				results <- result{code: -1}
				return
			}
			resp, err := http.DefaultClient.Do(r)
			if err != nil {
				results <- result{code: -1}
				return
			}
			_ = resp.Body.Close()
			results <- result{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
		}()
	}
	deadline := time.After(eventstest.WaitFor)
	for range share {
		select {
		case <-held.entered:
		case <-deadline:
			t.Fatalf("the admitted reads did not start within %s", eventstest.WaitFor)
		}
	}
	for range viewers - share {
		select {
		case r := <-results:
			if r.code != http.StatusTooManyRequests || r.retryAfter != "1" {
				t.Errorf("a read past the share: %d, Retry-After %q; want 429, 1", r.code, r.retryAfter)
			}
		case <-deadline:
			t.Fatalf("the reads past the share were not answered within %s", eventstest.WaitFor)
		}
	}

	// Every admitted read holds a connection; a heartbeat needs one too.
	ctx, cancel := context.WithTimeout(t.Context(), eventstest.WaitFor)
	defer cancel()
	rq, err := http.NewRequestWithContext(ctx, "PATCH", base+"/api/v1/nodes/pico-01/status", strings.NewReader(readyPatch))
	if err != nil {
		t.Fatal(err)
	}
	rq.Header.Set("Content-Type", strategicPatch)
	resp, err := http.DefaultClient.Do(rq)
	if err != nil {
		t.Fatalf("a heartbeat while viewers hold their share: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a heartbeat while viewers hold their share: %d", resp.StatusCode)
	}

	release()
	for range share {
		if r := <-results; r.code != http.StatusOK {
			t.Errorf("an admitted read: %d, want 200", r.code)
		}
	}
	// The share is free again.
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/apis/herd.dev/v1/auditevents?actor=alice"})
}

// TestALongReadEndsAtItsDeadline: a read of the log that runs past the
// configured deadline is cancelled (the query gets the expired context,
// and the database stops it) and answered 504 Timeout; its place in the
// share is given back.
func TestALongReadEndsAtItsDeadline(t *testing.T) {
	api := newTestAPI(t, nil)
	api.cfg.ReadTimeout = 20 * time.Millisecond
	api.reads = make(chan struct{}, 1)
	var queries atomic.Int64
	held := heldReads{Log: api.Log, db: api.store.DB(), entered: make(chan struct{}, 4), release: make(chan struct{})} // never released
	api.Log = countedQueries{Log: held, n: &queries}
	base := api.serve(t).URL
	for _, path := range []string{
		"/apis/herd.dev/v1/auditevents?actor=alice",
		"/api/v1/nodes?asOf=1h",
	} {
		a := send(t, nil, base, req{method: "GET", path: path})
		if a.code != http.StatusGatewayTimeout {
			t.Fatalf("GET %s: %d %s, want 504", path, a.code, a.body)
		}
		var st metav1.Status
		if err := json.Unmarshal(a.body, &st); err != nil || st.Reason != metav1.StatusReasonTimeout {
			t.Errorf("GET %s: %s, want a Status with reason Timeout", path, a.body)
		}
	}
	if queries.Load() != 2 {
		t.Errorf("%d queries ran, want 2", queries.Load())
	}
}

// countedQueries counts the log's queries.
type countedQueries struct {
	events.Log
	n *atomic.Int64
}

func (c countedQueries) Query(ctx context.Context, f events.Filter) ([]events.Record, error) {
	c.n.Add(1)
	return c.Log.Query(ctx, f)
}
