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
	serve := app.DefaultConfig()
	_, err = Run(ctx, log, Config{Since: start.Add(-time.Second), Serve: serve, Drains: []Drain{{"n1", start.Add(serve.Health.GracePeriod + time.Second)}}})
	var input *InputError
	if !errors.As(err, &input) || input.Field != "drains" || !strings.Contains(err.Error(), "the log's newest event, 2026-03-01T09:00:00Z, and a grace period") {
		t.Errorf("a drain a grace period and a second after the log's newest event: %v, want it refused naming that event", err)
	}
	rep, err := Run(ctx, log, Config{Since: start.Add(-time.Second), Serve: serve, Drains: []Drain{{"n1", start.Add(10 * time.Second)}}})
	if err != nil || !rep.Until.Equal(start.Add(10*time.Second)) {
		t.Errorf("a drain 10 s after the log's newest event: window to %s, %v; want it extended to the drain", rep.Until, err)
	}
}
