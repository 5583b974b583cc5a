package features

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (w *world) registerOverloadSteps(sc *godog.ScenarioContext) {
	sc.Step(`^herd's writes stall$`, w.writesStall)
	sc.Step(`^"([^"]+)" renews its lease every (\d+) seconds for (\d+) seconds while herd's writes stall$`, w.renewsWhileStalled)
	sc.Step(`^herd's writes go through$`, w.writesGoThrough)
	sc.Step(`^herd's metric (\S+) is (\S+)$`, w.metricIs)
	sc.Step(`^herd takes in (\d+) node heartbeats? at a time$`, func(ctx context.Context, n int) error {
		w.cfg.MaxHeartbeatsInflight = n
		return w.restart(ctx)
	})
	sc.Step(`^"([^"]+)" renews its lease every (\d+) seconds for (\d+) seconds, each answered 429 Too Many Requests, Retry-After (\d+), saying "([^"]+)"$`, w.renewalsShed)
	sc.Step(`^listing the nodes is refused with 429 Too Many Requests, Retry-After (\d+), saying "([^"]+)"$`, w.listRefused)
}

// stall is a scenario's stalled write path: writes wait in herd's queue,
// as behind a slow disk, until it ends.
type stall struct {
	release func()
	// answers are the requests sent while stalled, answered once it ends.
	answers []chan response
}

// end lets the stalled writes go on; it does nothing when none stalled.
func (s *stall) end() {
	if s.release != nil {
		s.release()
		s.release = nil
	}
}

func (w *world) writesStall() error {
	if w.stall.release != nil {
		return fmt.Errorf("herd's writes already stall")
	}
	// The stall lasts as long as the scenario's clock moves: the queue's
	// ages are read on it from here.
	w.writer.WriteQueue().SetClock(w.clock)
	w.stall.release = w.writer.WriteQueue().Hold()
	return nil
}

// renewsWhileStalled is a kubelet renewing its lease, as its lease
// controller does, by writing back the lease it holds with renewTime now,
// every period while herd's clock moves. Each renewal waits in herd's
// stalled write path, unanswered, and the next is sent regardless, as a
// kubelet's next renewal comes on its own timer.
func (w *world) renewsWhileStalled(node string, every, total int) error {
	if w.stall.release == nil {
		return fmt.Errorf("herd's writes do not stall")
	}
	queue := w.writer.WriteQueue()
	return w.renewEvery(node, every, total, func(elapsed time.Duration, body []byte) error {
		waiting := queue.Waiting()
		answer := make(chan response, 1)
		w.stall.answers = append(w.stall.answers, answer)
		go func() {
			r, err := w.doAs(w.auth.actor, http.MethodPut, leasePath(node), "application/json", body)
			if err != nil {
				r = response{method: http.MethodPut, path: leasePath(node), body: []byte(err.Error())}
			}
			answer <- r
		}()
		// The renewal has reached herd once it waits in the write path.
		return eventually("the renewal to reach herd", func() error {
			if queue.Waiting() <= waiting {
				return fmt.Errorf("the renewal of %s's lease after %s does not wait in herd's write path", node, elapsed)
			}
			return nil
		})
	})
}

// renewEvery moves herd's clock on by every seconds, up to total, and at
// each step hands renew the lease node's kubelet writes then, and how
// long since the first step's start.
func (w *world) renewEvery(node string, every, total int, renew func(elapsed time.Duration, body []byte) error) error {
	period := time.Duration(every) * time.Second
	for elapsed := period; elapsed <= time.Duration(total)*time.Second; elapsed += period {
		if err := w.setClock(w.clock.Now().Add(period)); err != nil {
			return err
		}
		body, err := w.kubeletLease(node)
		if err != nil {
			return err
		}
		if err := renew(elapsed, body); err != nil {
			return err
		}
	}
	return nil
}

// writesGoThrough ends the stall, waits for every request sent during it
// to be answered, each with success, and for the reconcilers to settle.
func (w *world) writesGoThrough() error {
	w.stall.end()
	answers := w.stall.answers
	w.stall.answers = nil
	for _, a := range answers {
		r := <-a
		if r.code < 200 || r.code > 299 {
			return fmt.Errorf("a request sent while herd's writes stalled: %s", r)
		}
	}
	return w.settle()
}

// metricIs reads /metrics as a scraper does and finds the sample named
// (with its labels, as exposed) at want.
func (w *world) metricIs(name, want string) error {
	r, err := w.do(http.MethodGet, "/metrics", "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusOK {
		return fmt.Errorf("/metrics: %s", r)
	}
	wantV, err := strconv.ParseFloat(want, 64)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		sample, value, ok := strings.Cut(line, " ")
		if !ok || sample != name {
			continue
		}
		got, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return fmt.Errorf("/metrics: %q: %w", line, err)
		}
		if got != wantV {
			return fmt.Errorf("/metrics: %s is %v, want %v", name, got, wantV)
		}
		return nil
	}
	return fmt.Errorf("/metrics has no %s", name)
}

// renewalsShed is a kubelet renewing its lease every period while
// herd's clock moves, each renewal answered at once with a refusal
// (herd's share of heartbeats is full), which the kubelet does not retry
// here: its next renewal comes on its own timer.
func (w *world) renewalsShed(node string, every, total, retryAfter int, saying string) error {
	return w.renewEvery(node, every, total, func(elapsed time.Duration, body []byte) error {
		r, err := w.doAs(w.auth.actor, http.MethodPut, leasePath(node), "application/json", body)
		if err != nil {
			return err
		}
		if err := expectTooManyRequests(r.code, r.header.Get("Retry-After"), r.body, retryAfter, saying); err != nil {
			return fmt.Errorf("the renewal of %s's lease after %s: %w", node, elapsed, err)
		}
		return nil
	})
}

func (w *world) listRefused(retryAfter int, saying string) error {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, w.server.URL()+"/api/v1/nodes", nil)
	if err != nil {
		return err
	}
	if w.auth.admin != "" {
		req.Header.Set("Authorization", "Bearer "+w.auth.admin)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := expectTooManyRequests(resp.StatusCode, resp.Header.Get("Retry-After"), body, retryAfter, saying); err != nil {
		return fmt.Errorf("listing the nodes: %w", err)
	}
	return nil
}

// expectTooManyRequests checks an answer of code, with the Retry-After
// header and body given, for a 429 with Retry-After retryAfter and a
// Status whose message says saying.
func expectTooManyRequests(code int, gotRetryAfter string, body []byte, retryAfter int, saying string) error {
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return fmt.Errorf("the answer (%d) is not a Status: %w: %s", code, err, body)
	}
	if code != http.StatusTooManyRequests || gotRetryAfter != strconv.Itoa(retryAfter) ||
		st.Reason != metav1.StatusReasonTooManyRequests || !strings.Contains(st.Message, saying) {
		return fmt.Errorf("%d, Retry-After %q, %s %q; want 429, %d, TooManyRequests saying %q",
			code, gotRetryAfter, st.Reason, st.Message, retryAfter, saying)
	}
	return nil
}
