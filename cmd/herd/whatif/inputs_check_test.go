package whatif

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"herd/cmd/herd/app"
	"herd/domain"
	"herd/events"
	"herd/projections/command"
)

// TestTheInputsAWhatIfAddsFallWithinItsWindow: a drain or a budget's
// change is refused, naming which, when it falls before the window's
// start or after its end, and a node's failure when it falls after the
// end (one that failed before is silent throughout); each needs its
// name. Those within the window pass.
func TestTheInputsAWhatIfAddsFallWithinItsWindow(t *testing.T) {
	since := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	until := since.Add(time.Hour)
	in, before, after := since.Add(time.Minute), since.Add(-time.Minute), until.Add(time.Minute)
	budget := func(at time.Time) BudgetChange {
		return BudgetChange{Namespace: "shop", Name: "cart", MaxUnavailable: domain.Ints(0), At: at}
	}
	for _, tc := range []struct {
		name  string
		cfg   Config
		field string
		index int
		words string
	}{
		{"within", Config{Failed: []NodeFailure{{"n1", in}, {"n2", before}}, Drains: []Drain{{"n1", in}, {"n2", until}},
			Budgets: []BudgetChange{budget(in), budget(time.Time{})}}, "", 0, ""},
		{"a failure after the end", Config{Failed: []NodeFailure{{"n1", in}, {"n2", after}}}, "nodeFailures", 1, "node n2 fails at 2026-03-01T10:01:00Z, after the window's end 2026-03-01T10:00:00Z"},
		{"a failure without a name", Config{Failed: []NodeFailure{{"", in}}}, "nodeFailures", 0, "needs a name"},
		{"a drain before the start", Config{Drains: []Drain{{"n1", before}}}, "drains", 0, "node n1 drained at 2026-03-01T08:59:00Z, before the window's start"},
		{"a drain after the end", Config{Drains: []Drain{{"n1", in}, {"n1", after}}}, "drains", 1, "after the window's end"},
		{"a budget after the end", Config{Budgets: []BudgetChange{budget(after)}}, "budgets", 0, "budget shop/cart changed at 2026-03-01T10:01:00Z, after the window's end"},
		{"a budget before the start", Config{Budgets: []BudgetChange{budget(before)}}, "budgets", 0, "before the window's start"},
		{"a budget without a setting", Config{Budgets: []BudgetChange{{Namespace: "shop", Name: "cart", At: in}}}, "budgets", 0, "give minAvailable or maxUnavailable"},
	} {
		tc.cfg.Since = since
		err := tc.cfg.checkInputs(until, "")
		var input *InputError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v, want no error", tc.name, err)
		case tc.field != "" && (!errors.As(err, &input) || input.Field != tc.field || input.Index != tc.index || !strings.Contains(err.Error(), tc.words)):
			t.Errorf("%s: %v, want %s[%d] refused, saying %q", tc.name, err, tc.field, tc.index, tc.words)
		}
	}
}

// TestAnOpenWindowReachesAnInputAGracePeriodPastTheLog: with no end
// given, a drain asked after the log's newest event is refused when it
// falls more than a grace period after it (herd, running, would have
// written something by then: it was down), naming that event; one
// within a grace period extends the window to it.
func TestAnOpenWindowReachesAnInputAGracePeriodPastTheLog(t *testing.T) {
	ctx := t.Context()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	log := logOfOneRegistration(t, start)
	serve := app.DefaultConfig()
	_, err := Run(ctx, log, Config{Since: start.Add(-time.Second), Serve: serve, Drains: []Drain{{"n1", start.Add(serve.Health.GracePeriod + time.Second)}}})
	var input *InputError
	if !errors.As(err, &input) || input.Field != "drains" || !strings.Contains(err.Error(), "the log's newest event, 2026-03-01T09:00:00Z, and a grace period") {
		t.Errorf("a drain a grace period and a second after the log's newest event: %v, want it refused naming that event", err)
	}
	rep, err := Run(ctx, log, Config{Since: start.Add(-time.Second), Serve: serve, Drains: []Drain{{"n1", start.Add(10 * time.Second)}}})
	if err != nil || !rep.Until.Equal(start.Add(10*time.Second)) {
		t.Errorf("a drain 10 s after the log's newest event: window to %s, %v; want it extended to the drain", rep.Until, err)
	}
}

// TestAnEndAskedPastAStoppedHerdsLogEndsWhereTheLogDoes: herd recorded a
// node's registration and then nothing (it was stopped). A what-if asked
// to go on ten minutes past that does not take herd's silence for the
// node's, which would have it marked NotReady in the what-if alone: the
// window ends at the log's end and the answer says so. An end within a
// grace period of the log's end is kept as asked.
func TestAnEndAskedPastAStoppedHerdsLogEndsWhereTheLogDoes(t *testing.T) {
	ctx := t.Context()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	log := logOfOneRegistration(t, start)
	serve := app.DefaultConfig()
	asked := start.Add(10 * time.Minute)
	rep, err := Run(ctx, log, Config{Since: start.Add(-time.Second), Until: asked, Serve: serve})
	if err != nil {
		t.Fatal(err)
	}
	// (The log, made by hand, lacks the namespaces herd creates at its
	// start: the what-if's own creations of them are no concern here.)
	for _, d := range rep.Extra {
		if d.Stream == domain.NodeStream("n1") {
			t.Errorf("the what-if past herd's stop decides %s on n1 alone", d.Type)
		}
	}
	if len(rep.Nodes) != 0 {
		t.Errorf("the what-if past herd's stop finds node differences %+v; want none", rep.Nodes)
	}
	if rep.Cut == nil || !rep.Cut.Asked.Equal(asked) || !rep.Cut.LogEnd.Equal(start) || !rep.Until.Equal(start) {
		t.Errorf("window to %s, cut %+v; want it ended at the log's end %s, naming the end asked for", rep.Until, rep.Cut, start)
	}
	_, err = Run(ctx, log, Config{Since: start.Add(-time.Second), Until: asked, Serve: serve, Drains: []Drain{{"n1", start.Add(5 * time.Minute)}}})
	var input *InputError
	if !errors.As(err, &input) || input.Field != "drains" || !strings.Contains(err.Error(), "the log's newest event, 2026-03-01T09:00:00Z") {
		t.Errorf("a drain in herd's silence after its log's end: %v, want it refused naming the log's end", err)
	}
	near := start.Add(30 * time.Second)
	rep, err = Run(ctx, log, Config{Since: start.Add(-time.Second), Until: near, Serve: serve})
	if err != nil || rep.Cut != nil || !rep.Until.Equal(near) {
		t.Errorf("an end 30 s past the log's end: window to %s, cut %+v, %v; want it as asked", rep.Until, rep.Cut, err)
	}
}

// logOfOneRegistration is a log that holds node n1's registration at
// start, and nothing else.
func logOfOneRegistration(t *testing.T, start time.Time) events.Log {
	t.Helper()
	ctx := t.Context()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "source.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := store.Log()
	t.Cleanup(func() { _ = log.Close() })
	enc, err := command.EncodeEvents([]domain.Event{domain.NodeRegistered{Registration: domain.Registration{Name: "n1", Kind: domain.KindKubelet}, At: start}})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Append(ctx, domain.NodeStream("n1"), 0, events.Metadata{Actor: "system:node:n1"}, start, enc...); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return log
}
