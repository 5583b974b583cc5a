package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/events"
)

// fakeWhatIfs is a what-if runner that records the questions it gets
// and, while hold is open, waits on it (or for the request's end).
type fakeWhatIfs struct {
	mu      sync.Mutex
	asked   []WhatIfQuestion
	running chan struct{}
	hold    chan struct{}
}

func (f *fakeWhatIfs) WhatIfSettings(o WhatIfSettings, p *field.Path) (WhatIfSettings, field.ErrorList) {
	out := WhatIfSettings{NodeMonitorGracePeriod: &metav1.Duration{Duration: 40 * time.Second}}
	if o.NodeMonitorGracePeriod != nil {
		out.NodeMonitorGracePeriod = o.NodeMonitorGracePeriod
		if o.NodeMonitorGracePeriod.Duration <= 0 {
			return out, field.ErrorList{field.Invalid(p.Child("nodeMonitorGracePeriod"), o.NodeMonitorGracePeriod.String(), "want a positive duration")}
		}
	}
	return out, nil
}

func (f *fakeWhatIfs) RunWhatIf(ctx context.Context, q WhatIfQuestion) (any, error) {
	f.mu.Lock()
	f.asked = append(f.asked, q)
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		f.running <- struct{}{}
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return map[string]any{"events": 3}, nil
}

// release lets every later what-if run at once.
func (f *fakeWhatIfs) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = nil
}

func newWhatIfAPI(t *testing.T, f *fakeWhatIfs) string {
	t.Helper()
	tf, err := ParseTokenFile(strings.NewReader(tokens))
	if err != nil {
		t.Fatal(err)
	}
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	api := newTestAPIWith(t, store.Log(), tf, func(d *Deps) { d.WhatIf = f })
	return api.serve(t).URL
}

// TestWhatIfIsAReadOfHistory: a what-if writes nothing to the log, so
// that whoever may read the fleet's history may ask it: admins and
// viewers; a node's token, and a token of no role, may not. The
// question reaches the runner resolved against herd's clock.
func TestWhatIfIsAReadOfHistory(t *testing.T) {
	f := &fakeWhatIfs{}
	base := newWhatIfAPI(t, f)
	body := `{"apiVersion":"herd.dev/v1","kind":"WhatIf","spec":{"since":"1h","settings":{"nodeMonitorGracePeriod":"20s"},"drains":[{"node":"pico-01","at":"30m"}]}}`
	for _, tc := range []struct {
		token string
		code  int
	}{{"admin-token", 200}, {"viewer-token", 200}, {"pico1-token", 403}, {"norole-token", 403}, {"", 401}} {
		a := send(t, nil, base, req{method: "POST", path: "/apis/herd.dev/v1/whatifs", token: tc.token, body: body})
		if a.code != tc.code {
			t.Errorf("%q asks a what-if: %d %s, want %d", tc.token, a.code, a.body, tc.code)
		}
	}
	if len(f.asked) != 2 {
		t.Fatalf("the runner was asked %d times, want twice (admin, viewer)", len(f.asked))
	}
	q := f.asked[0]
	if want := t0.Add(-time.Hour); !q.Since.Equal(want) || !q.Until.IsZero() {
		t.Errorf("asked from %s to %s, want from %s (an hour before herd's clock) to the log's end", q.Since, q.Until, want)
	}
	if len(q.Drains) != 1 || q.Drains[0].Node != "pico-01" || !q.Drains[0].At.Equal(t0.Add(-30*time.Minute)) {
		t.Errorf("asked drains %+v, want pico-01 half an hour before herd's clock", q.Drains)
	}
	a := mustSend(t, nil, base, 200, req{method: "POST", path: "/apis/herd.dev/v1/whatifs", token: "viewer-token", body: body})
	var out WhatIf
	if err := json.Unmarshal(a.body, &out); err != nil {
		t.Fatal(err)
	}
	if out.Kind != "WhatIf" || out.Spec.Since != t0.Add(-time.Hour).Format(time.RFC3339Nano) || out.Spec.Settings.NodeMonitorGracePeriod.Duration != 20*time.Second {
		t.Errorf("the answer gives back %+v, want the question resolved", out.Spec)
	}
	// The discovery of herd.dev lists it, as a verb kubectl can create.
	d := mustSend(t, nil, base, 200, req{method: "GET", path: "/apis/herd.dev/v1", token: "viewer-token"})
	if !strings.Contains(string(d.body), `"name":"whatifs"`) {
		t.Errorf("herd.dev/v1's discovery does not list whatifs: %s", d.body)
	}
}

// TestWhatIfOneAtATime: while one what-if runs, another is refused
// with 429 and Retry-After, naming why; once it is over the next runs.
func TestWhatIfOneAtATime(t *testing.T) {
	f := &fakeWhatIfs{running: make(chan struct{}, 1), hold: make(chan struct{})}
	base := newWhatIfAPI(t, f)
	rq := req{method: "POST", path: "/apis/herd.dev/v1/whatifs", token: "viewer-token", body: `{"spec":{"since":"1h"}}`}
	first := make(chan answer, 1)
	go func() { first <- send(t, nil, base, rq) }()
	<-f.running
	a := send(t, nil, base, rq)
	if a.code != http.StatusTooManyRequests {
		t.Fatalf("a second what-if while one runs: %d %s, want 429", a.code, a.body)
	}
	if _, msg := a.status(t); !strings.Contains(msg, "another what-if is running") {
		t.Errorf("the 429 says %q, want why", msg)
	}
	close(f.hold)
	if a := <-first; a.code != 200 {
		t.Fatalf("the first what-if: %d %s", a.code, a.body)
	}
	f.release()
	mustSend(t, nil, base, 200, rq)
}

// TestWhatIfBadInputChangesNothing: a what-if asked wrongly is refused
// with 400 naming each wrong field, before the runner is asked.
func TestWhatIfBadInputChangesNothing(t *testing.T) {
	f := &fakeWhatIfs{}
	base := newWhatIfAPI(t, f)
	for _, tc := range []struct {
		body  string
		words []string
	}{
		{`{"spec":{}}`, []string{"spec.since: Required value"}},
		{`{"spec":{"since":"-1h"}}`, []string{"spec.since", "duration ago"}},
		{`{"spec":{"since":"30h"}}`, []string{"spec.since", "at most 24h0m0s"}},
		{`{"spec":{"since":"2h","until":"3h"}}`, []string{"spec.until", "before since"}},
		{`{"spec":{"since":"1h","step":"1ms"}}`, []string{"spec.step", "at least 100ms"}},
		{`{"spec":{"since":"1h","step":"soon"}}`, []string{"not a valid WhatIf"}},
		{`{"spec":{"since":"1h","evictionRetry":"-5s"}}`, []string{"spec.evictionRetry", "0s for a client that asks once"}},
		{`{"spec":{"since":"1h","settings":{"nodeMonitorGracePeriod":"0s"}}}`, []string{"spec.settings.nodeMonitorGracePeriod", "positive"}},
		{`{"spec":{"since":"1h","nodeFailures":[{"node":"","at":"1h"}]}}`, []string{"spec.nodeFailures[0].node"}},
		{`{"spec":{"since":"1h","drains":[{"node":"pico-01"}]}}`, []string{"spec.drains[0].at"}},
		{`{"spec":{"since":"1h","drains":[{"node":"pico-01","at":"2099-01-01T00:00:00Z"}]}}`, []string{"spec.drains[0].at", "in the future"}},
		{`{"spec":{"since":"1h","nodes":[]}}`, []string{`unknown field "nodes"`}},
		{`{"kind":"Node","spec":{"since":"1h"}}`, []string{"not a WhatIf"}},
	} {
		a := send(t, nil, base, req{method: "POST", path: "/apis/herd.dev/v1/whatifs", token: "admin-token", body: tc.body})
		badRequestNaming(t, a, tc.words...)
	}
	if len(f.asked) != 0 {
		t.Errorf("the runner was asked %d questions that were refused", len(f.asked))
	}
}

// TestWhatIfLimitReachesTheRunner: ?limit= says how many decisions of
// each kind the answer lists; it reaches the runner, and a limit that is
// no number from 1 to the most is refused naming it, before the runner
// is asked.
func TestWhatIfLimitReachesTheRunner(t *testing.T) {
	f := &fakeWhatIfs{}
	base := newWhatIfAPI(t, f)
	body := `{"spec":{"since":"1h"}}`
	for _, bad := range []string{"0", "-3", "many", "10001", "2&limit=3"} {
		a := send(t, nil, base, req{method: "POST", path: "/apis/herd.dev/v1/whatifs?limit=" + bad, token: "viewer-token", body: body})
		badRequestNaming(t, a, "limit", "from 1 to 10000")
	}
	if len(f.asked) != 0 {
		t.Fatalf("the runner was asked %d questions with a wrong limit", len(f.asked))
	}
	mustSend(t, nil, base, 200, req{method: "POST", path: "/apis/herd.dev/v1/whatifs?limit=2", token: "viewer-token", body: body})
	mustSend(t, nil, base, 200, req{method: "POST", path: "/apis/herd.dev/v1/whatifs", token: "viewer-token", body: body})
	if len(f.asked) != 2 || f.asked[0].Limit != 2 || f.asked[1].Limit != 0 {
		t.Errorf("the runner was asked %+v, want limit 2, then none (its default)", f.asked)
	}
}

// TestWhatIfEvictionRetryReachesTheRunner: how often a client asks again
// for an eviction reaches the runner: left out, the runner's default
// (nil); "0s", a client that asks once (0); else as given.
func TestWhatIfEvictionRetryReachesTheRunner(t *testing.T) {
	f := &fakeWhatIfs{}
	base := newWhatIfAPI(t, f)
	for _, retry := range []string{``, `,"evictionRetry":"0s"`, `,"evictionRetry":"30s"`} {
		mustSend(t, nil, base, 200, req{method: "POST", path: "/apis/herd.dev/v1/whatifs", token: "admin-token", body: `{"spec":{"since":"1h"` + retry + `}}`})
	}
	if len(f.asked) != 3 || f.asked[0].EvictionRetry != nil || f.asked[1].EvictionRetry == nil || *f.asked[1].EvictionRetry != 0 ||
		f.asked[2].EvictionRetry == nil || *f.asked[2].EvictionRetry != 30*time.Second {
		t.Errorf("the runner was asked %+v: want the default, a client that asks once, and 30s", f.asked)
	}
}

// TestWhatIfTakesATimeABrowsersClockPutsAhead: a time a second or two
// ahead of herd's clock (a browser's "now", its clock a little ahead) is
// taken as it is; one further ahead is refused (TestWhatIfBadInputChangesNothing).
func TestWhatIfTakesATimeABrowsersClockPutsAhead(t *testing.T) {
	f := &fakeWhatIfs{}
	base := newWhatIfAPI(t, f)
	ahead := t0.Add(2 * time.Second).Format(time.RFC3339)
	mustSend(t, nil, base, 200, req{method: "POST", path: "/apis/herd.dev/v1/whatifs", token: "admin-token", body: `{"spec":{"since":"1h","drains":[{"node":"pico-01","at":"` + ahead + `"}]}}`})
	if len(f.asked) != 1 || len(f.asked[0].Drains) != 1 || !f.asked[0].Drains[0].At.Equal(t0.Add(2*time.Second)) {
		t.Errorf("the runner was asked %+v: want the drain 2 s ahead of herd's clock, as given", f.asked)
	}
}

// TestWhatIfStopsWhenItsAskerGoes: a client that goes away (the web
// view's page left) cancels its what-if's context, so the run stops and
// the next question runs at once instead of waiting its turn.
func TestWhatIfStopsWhenItsAskerGoes(t *testing.T) {
	f := &fakeWhatIfs{running: make(chan struct{}, 1), hold: make(chan struct{})}
	base := newWhatIfAPI(t, f)
	ctx, cancel := context.WithCancel(t.Context())
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/apis/herd.dev/v1/whatifs", strings.NewReader(`{"spec":{"since":"1h"}}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer viewer-token")
	gone := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(r)
		if err == nil {
			_ = resp.Body.Close()
		}
		gone <- err
	}()
	<-f.running
	cancel()
	if err := <-gone; err == nil {
		t.Fatal("the abandoned what-if was answered")
	}
	// The server frees its place once the run has stopped; the next
	// question waits for no other.
	f.release()
	var a answer
	eventually(t, func() bool {
		a = send(t, nil, base, req{method: "POST", path: "/apis/herd.dev/v1/whatifs", token: "viewer-token", body: `{"spec":{"since":"1h"}}`})
		return a.code != http.StatusTooManyRequests
	}, "the abandoned what-if gives up its place")
	if a.code != http.StatusOK {
		t.Fatalf("the question after an abandoned one: %d %s, want 200", a.code, a.body)
	}
}

// TestWhatIfDryRunAnswersTheSettingsWithoutRunning: a dry run of a
// what-if (?dryRun=All) is checked as a run is and answers the question
// resolved, with every setting herd would run it with, but never runs
// it; a setting refused is refused as a run refuses it, naming it; a
// viewer may ask it, as a run.
func TestWhatIfDryRunAnswersTheSettingsWithoutRunning(t *testing.T) {
	f := &fakeWhatIfs{}
	base := newWhatIfAPI(t, f)
	a := mustSend(t, nil, base, 200, req{method: "POST", path: "/apis/herd.dev/v1/whatifs?dryRun=All", token: "viewer-token", body: `{"spec":{"since":"1h"}}`})
	var out struct {
		Kind   string          `json:"kind"`
		Spec   WhatIfSpec      `json:"spec"`
		Status json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil {
		t.Fatal(err)
	}
	if out.Kind != "WhatIf" || out.Spec.Since != t0.Add(-time.Hour).Format(time.RFC3339Nano) ||
		out.Spec.Settings.NodeMonitorGracePeriod == nil || out.Spec.Settings.NodeMonitorGracePeriod.Duration != 40*time.Second {
		t.Errorf("the dry run answers %s, want the question resolved with herd's own settings", a.body)
	}
	if out.Status != nil {
		t.Errorf("the dry run answers a report: %s", out.Status)
	}
	bad := send(t, nil, base, req{method: "POST", path: "/apis/herd.dev/v1/whatifs?dryRun=All", token: "viewer-token",
		body: `{"spec":{"since":"1h","settings":{"nodeMonitorGracePeriod":"0s"}}}`})
	badRequestNaming(t, bad, "spec.settings.nodeMonitorGracePeriod", "positive")
	badRequestNaming(t, send(t, nil, base, req{method: "POST", path: "/apis/herd.dev/v1/whatifs?dryRun=Some", token: "viewer-token",
		body: `{"spec":{"since":"1h"}}`}), "dryRun")
	if len(f.asked) != 0 {
		t.Errorf("a dry run ran the what-if %d times", len(f.asked))
	}
}
