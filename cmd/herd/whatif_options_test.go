package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"herd/cmd/herd/whatif"
)

// TestWhatIfRefusesWhatItCannotAsk: a what-if question that cannot be
// asked is refused before anything runs, with an error naming the flag.
func TestWhatIfRefusesWhatItCannotAsk(t *testing.T) {
	now := time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		change func(*whatIfOptions)
		want   string
	}{
		{"no window", func(o *whatIfOptions) { o.since = "" }, "--what-if needs --since"},
		{"a window of no time", func(o *whatIfOptions) { o.since = "yesterday" }, `--since "yesterday"`},
		{"an end before the start", func(o *whatIfOptions) { o.until = "3h" }, "--until 3h is before --since 2h"},
		{"a failure without a time", func(o *whatIfOptions) { o.fails = []string{"web-01"} }, `--node-fails "web-01": want NODE@TIME`},
		{"a failure at no time", func(o *whatIfOptions) { o.fails = []string{"web-01@soon"} }, `--node-fails "soon"`},
		{"a drain of no node", func(o *whatIfOptions) { o.drains = []string{"@1h"} }, `--drain "@1h": want NODE@TIME`},
		{"a drain in the future", func(o *whatIfOptions) { o.drains = []string{"web-01@2026-11-28T16:00:00Z"} }, `--drain "2026-11-28T16:00:00Z" is in the future`},
		{"a negative eviction retry", func(o *whatIfOptions) { o.evictionRetry = -time.Second }, "--eviction-retry -1s"},
		{"no grace period", func(o *whatIfOptions) { o.serve.Health.GracePeriod = 0 }, "--node-monitor-grace-period 0s"},
		{"an unknown reconciler", func(o *whatIfOptions) { o.serve.Reconcilers.Enabled = []string{"*", "-nosuch"} }, "nosuch"},
		{"an unknown runtime", func(o *whatIfOptions) { o.serve.NodeRuntime = "docker" }, `--node-runtime "docker"`},
		{"a negative step", func(o *whatIfOptions) { o.step = -time.Second }, "--step -1s"},
		{"a negative number of decisions", func(o *whatIfOptions) { o.showDecisions = -2 }, "--show-decisions=-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newWhatIfOptions()
			o.since = "2h"
			tc.change(&o)
			_, err := o.config(now)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// TestWhatIfQuestionFromFlags: the flags become the question: the window,
// herd's settings, the nodes that fail and the drains.
func TestWhatIfQuestionFromFlags(t *testing.T) {
	now := time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)
	o := newWhatIfOptions()
	o.since, o.until = "2026-11-28T09:00:00Z", "1h"
	o.serve.Health.GracePeriod = 20 * time.Second
	o.fails = []string{"web-01@2026-11-28T09:12:00Z", "web-02@2026-11-28T09:12:00Z"}
	o.drains = []string{"web-03@5h"}
	cfg, err := o.config(now)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 28, 9, 12, 0, 0, time.UTC)
	if !cfg.Since.Equal(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)) || !cfg.Until.Equal(now.Add(-time.Hour)) ||
		cfg.Serve.Health.GracePeriod != 20*time.Second ||
		len(cfg.Failed) != 2 || cfg.Failed[0] != (whatif.NodeFailure{Node: "web-01", At: at}) || cfg.Failed[1].Node != "web-02" ||
		len(cfg.Drains) != 1 || cfg.Drains[0] != (whatif.Drain{Node: "web-03", At: now.Add(-5 * time.Hour)}) {
		t.Errorf("the question: %+v", cfg)
	}
}

// TestWhatIfShowDecisionsSetsTheLimit: --show-decisions alone lists the
// default number of decisions of each kind, --show-decisions=N the first
// N; without it the question keeps the engine's default.
func TestWhatIfShowDecisionsSetsTheLimit(t *testing.T) {
	now := time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--since", "2h"}, 0},
		{[]string{"--since", "2h", "--show-decisions"}, whatif.DefaultLimit},
		{[]string{"--since", "2h", "--show-decisions=7"}, 7},
	} {
		o := newWhatIfOptions()
		f := pflag.NewFlagSet("what-if", pflag.ContinueOnError)
		addWhatIfFlags(f, &o, "")
		if err := f.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := o.config(now)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Limit != tc.want {
			t.Errorf("%v: limit %d, want %d", tc.args, cfg.Limit, tc.want)
		}
	}
}
