package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"herd/cmd/herd/whatif"
	"herd/reconcilers/scheduler"
)

// TestWhatIfSaysTheWindowCrossesHerdsDowntime: herd's own downtime is
// an input of the replay, and the answer says so in words, beside the
// count of what would have fared differently.
func TestWhatIfSaysTheWindowCrossesHerdsDowntime(t *testing.T) {
	at := rfc3339(t)
	rep := whatif.Report{
		Since: at("2026-11-28T09:00:00Z"), Until: at("2026-11-28T09:20:00Z"), From: 1, To: 90, Events: 90,
		Downtimes: []whatif.Downtime{{From: at("2026-11-28T09:01:10Z"), Until: at("2026-11-28T09:14:10Z")}},
		Same:      12,
	}
	answerSays(t, rep, whatif.Config{Serve: newWhatIfOptions().serve},
		"the window crosses herd's downtime from 2026-11-28T09:01:10Z to 2026-11-28T09:14:10Z",
		"every node had a full grace period from 2026-11-28T09:14:10Z",
		"12 decisions of herd's reconcilers the same; 0 only herd made, 0 only the what-if would have made",
		"0 nodes and 0 pods would have fared differently",
	)
}

// TestWhatIfSaysItEndsWhereHerdsLogEnds: a window asked for past the
// log's end, herd having recorded nothing since, ends there, and the
// answer says why.
func TestWhatIfSaysItEndsWhereHerdsLogEnds(t *testing.T) {
	at := rfc3339(t)
	rep := whatif.Report{
		Since: at("2026-11-28T09:00:00Z"), Until: at("2026-11-28T09:02:00Z"), From: 1, To: 90, Events: 90,
		Cut: &whatif.WindowCut{Asked: at("2026-11-28T10:00:00Z"), LogEnd: at("2026-11-28T09:02:00Z")},
	}
	answerSays(t, rep, whatif.Config{Serve: newWhatIfOptions().serve},
		"what-if from 2026-11-28T09:00:00Z to 2026-11-28T09:02:00Z",
		"herd's log ends at 2026-11-28T09:02:00Z, more than a grace period before the window's end asked for, 2026-11-28T10:00:00Z: herd recorded nothing after it (it was down, or is stopped), so the what-if ends at 2026-11-28T09:02:00Z rather than take herd's silence for the fleet's",
	)
}

// TestWhatIfSaysWhyEachDifference: every difference comes with its chain
// of causes in the simulated log, and inputs the what-if changed are
// named first.
func TestWhatIfSaysWhyEachDifference(t *testing.T) {
	at := rfc3339(t)
	beat := whatif.Cause{Type: "HeartbeatMissed", Stream: "node/web-01", Actor: "system:herd:health", At: at("2026-11-28T09:12:40Z")}
	rep := whatif.Report{
		Since: at("2026-11-28T09:00:00Z"), Until: at("2026-11-28T09:20:00Z"), From: 1, To: 90, Events: 90, Inputs: 40,
		Nodes: []whatif.NodeDifference{{Node: "web-01", WhatIf: []time.Time{at("2026-11-28T09:12:40Z")}, Causes: []whatif.Cause{beat}}},
		Pods: []whatif.PodDifference{{Pod: "default/cache-*", WhatIf: []whatif.Eviction{{Node: "web-01", At: at("2026-11-28T09:12:50Z"), By: "system:herd:noexecute"}},
			Causes: []whatif.Cause{{Type: "PodDeletionRequested", Stream: "pod/default/cache-*", Actor: "system:herd:noexecute", At: at("2026-11-28T09:12:50Z")}, beat}}},
		Placements: []whatif.PlacementDifference{{Pod: "default/cache-*", Actual: []string{"web-01"}, WhatIf: []string{"web-01", "web-02"}}},
		Workloads:  []whatif.WorkloadDifference{{Workload: "replicaset default/cache", WhatIf: 90 * time.Second}},
		Extra:      []whatif.Decision{{Type: "HeartbeatMissed"}}, ExtraCount: 1,
	}
	cfg := whatif.Config{Serve: newWhatIfOptions().serve, Failed: []whatif.NodeFailure{{Node: "web-01", At: at("2026-11-28T09:12:00Z")}}}
	answerSays(t, rep, cfg,
		"in the what-if node web-01 fails at 2026-11-28T09:12:00Z: nothing it sent from then reaches herd",
		"node web-01: did not go NotReady; would have at 2026-11-28T09:12:40Z\n      because HeartbeatMissed on node/web-01 by system:herd:health at 2026-11-28T09:12:40Z",
		"pod default/cache-*: was not evicted; would have been from web-01 at 2026-11-28T09:12:50Z by noexecute\n      because PodDeletionRequested",
		"\n         after HeartbeatMissed on node/web-01",
		"pod default/cache-*: placed on web-01; would have been on web-01, web-02",
		"replicaset default/cache: below its desired availability for 0s; would have been for 1m30s",
		"0 only herd made, 1 only the what-if would have made",
		"1 nodes and 2 pods would have fared differently",
	)
}

// TestWhatIfShowsTheDecisionsThatDiffer: --show-decisions lists each
// decision only herd made and each only the what-if would have made,
// with its time, type, object and reconciler, and the latter's causes.
func TestWhatIfShowsTheDecisionsThatDiffer(t *testing.T) {
	at := rfc3339(t)
	rep := whatif.Report{
		Missing: []whatif.Decision{{Type: "PodStatusUpdated", Stream: "pod/demo/web-*", Actor: "system:herd:zones", At: at("2026-11-28T09:01:00Z")}},
		Extra: []whatif.Decision{{Type: "PodScheduled", Stream: "pod/demo/web-*", Actor: "system:herd:scheduler", At: at("2026-11-28T09:02:00Z"),
			Causes: []whatif.Cause{{Type: "PodCreated", Stream: "pod/demo/web-*", Actor: "system:herd:replicaset", At: at("2026-11-28T09:02:00Z")}}}},
		MissingCount: 1, ExtraCount: 1,
	}
	var out bytes.Buffer
	printDecisions(&out, rep)
	want := `decisions only herd made (1):
  2026-11-28T09:01:00Z PodStatusUpdated on pod/demo/web-* by system:herd:zones
decisions only the what-if would have made (1):
  2026-11-28T09:02:00Z PodScheduled on pod/demo/web-* by system:herd:scheduler
      because PodCreated on pod/demo/web-* by system:herd:replicaset at 2026-11-28T09:02:00Z
`
	if out.String() != want {
		t.Errorf("--show-decisions wrote\n%s\nwant\n%s", out.String(), want)
	}
}

// TestWhatIfSaysHowManyDecisionsItDidNotShow: a report that lists only
// the first decisions counts them all, and the CLI says how many more
// there are.
func TestWhatIfSaysHowManyDecisionsItDidNotShow(t *testing.T) {
	at := rfc3339(t)
	rep := whatif.Report{
		Events: 12, Same: 4, MissingCount: 3, ExtraCount: 5, Limit: 1, Truncated: true,
		Missing: []whatif.Decision{{Type: "NodeTainted", Stream: "node/web-01", Actor: "system:herd:health", At: at("2026-11-28T09:01:00Z")}},
		Extra:   []whatif.Decision{{Type: "HeartbeatMissed", Stream: "node/web-02", Actor: "system:herd:health", At: at("2026-11-28T09:02:00Z")}},
	}
	var out bytes.Buffer
	printDecisions(&out, rep)
	want := `decisions only herd made (3):
  2026-11-28T09:01:00Z NodeTainted on node/web-01 by system:herd:health
  2 more not shown (--show-decisions=N lists the first N)
decisions only the what-if would have made (5):
  2026-11-28T09:02:00Z HeartbeatMissed on node/web-02 by system:herd:health
  4 more not shown (--show-decisions=N lists the first N)
`
	if out.String() != want {
		t.Errorf("--show-decisions wrote\n%s\nwant\n%s", out.String(), want)
	}
	answerSays(t, rep, whatif.Config{Serve: newWhatIfOptions().serve}, "4 decisions of herd's reconcilers the same; 3 only herd made, 5 only the what-if would have made")
}

// rfc3339 parses the tests' times, failing t on a typo.
func rfc3339(t *testing.T) func(string) time.Time {
	return func(s string) time.Time {
		t.Helper()
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
}

// answerSays prints rep as herd what-if answers and fails t for each
// of wants the answer lacks.
func answerSays(t *testing.T, rep whatif.Report, cfg whatif.Config, wants ...string) {
	t.Helper()
	var out bytes.Buffer
	printWhatIf(&out, rep, cfg)
	for _, want := range wants {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the answer lacks %q:\n%s", want, out.String())
		}
	}
}

// TestWhatIfCountsTheTimesItDoesNotList: a node that would have gone
// NotReady many times, or a pod evicted many times, has its first times
// listed and the rest counted, with the last; a few are all listed. The
// answer a server sends (--server) reads the same: it lists as few.
func TestWhatIfCountsTheTimesItDoesNotList(t *testing.T) {
	at := rfc3339(t)
	start := at("2026-11-28T09:00:00Z")
	every := func(n int) []time.Time {
		ts := make([]time.Time, n)
		for i := range ts {
			ts[i] = start.Add(time.Duration(i) * 4 * time.Minute)
		}
		return ts
	}
	evicted := func(n int) []whatif.Eviction {
		es := make([]whatif.Eviction, n)
		for i, t := range every(n) {
			es[i] = whatif.Eviction{Node: fmt.Sprintf("web-%02d", i+1), At: t, By: "system:herd:noexecute"}
		}
		return es
	}
	rep := whatif.Report{
		Since: start, Until: at("2026-11-28T10:00:00Z"), From: 1, To: 90, Events: 90,
		Nodes: []whatif.NodeDifference{
			{Node: "web-01", WhatIf: every(9)},
			{Node: "web-02", Actual: every(1), WhatIf: every(6)},
		},
		Pods: []whatif.PodDifference{{Pod: "default/api-*", Actual: evicted(2), WhatIf: evicted(8)}},
	}
	wants := []string{
		"node web-01: did not go NotReady; would have at 2026-11-28T09:00:00Z, 2026-11-28T09:04:00Z, 2026-11-28T09:08:00Z, 2026-11-28T09:12:00Z, 2026-11-28T09:16:00Z and 4 more, the last at 2026-11-28T09:32:00Z\n",
		"node web-02: went NotReady at 2026-11-28T09:00:00Z; would have at 2026-11-28T09:00:00Z, 2026-11-28T09:04:00Z, 2026-11-28T09:08:00Z, 2026-11-28T09:12:00Z, 2026-11-28T09:16:00Z, 2026-11-28T09:20:00Z\n",
		"pod default/api-*: evicted from web-01 at 2026-11-28T09:00:00Z by noexecute, from web-02 at 2026-11-28T09:04:00Z by noexecute; would have been from web-01 at 2026-11-28T09:00:00Z by noexecute, " +
			"from web-02 at 2026-11-28T09:04:00Z by noexecute, from web-03 at 2026-11-28T09:08:00Z by noexecute, from web-04 at 2026-11-28T09:12:00Z by noexecute, from web-05 at 2026-11-28T09:16:00Z by noexecute " +
			"and 3 more, the last from web-08 at 2026-11-28T09:28:00Z by noexecute\n",
	}
	cfg := whatif.Config{Serve: newWhatIfOptions().serve}
	answerSays(t, rep, cfg, wants...)

	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var sent whatif.Report
	if err := json.Unmarshal(data, &sent); err != nil {
		t.Fatal(err)
	}
	if n := len(sent.Nodes[0].WhatIf); n != whatif.Listed {
		t.Errorf("the server's answer lists %d of web-01's 9 times, want %d", n, whatif.Listed)
	}
	if n := len(sent.Pods[0].WhatIf); n != whatif.Listed {
		t.Errorf("the server's answer lists %d of the pods' 8 evictions, want %d", n, whatif.Listed)
	}
	answerSays(t, sent, cfg, wants...)
}

// TestWhatIfSaysWhichEvictionsABudgetRefused: an eviction a client asked
// for that the what-if's budget refused is named, with who asked, when,
// the budget and its words, and the settings changed are in the header.
func TestWhatIfSaysWhichEvictionsABudgetRefused(t *testing.T) {
	at := rfc3339(t)
	rep := whatif.Report{
		Since: at("2026-11-28T09:00:00Z"), Until: at("2026-11-28T09:20:00Z"), From: 1, To: 90, Events: 90, Inputs: 40,
		RefusedEvictions: []whatif.RefusedEviction{{Pod: "default/cache-*", At: at("2026-11-28T09:05:00Z"), Actor: "admin",
			Budget: "default/cache", Cause: "Cannot evict pod as it would violate the pod's disruption budget."}},
	}
	cfg := whatif.Config{Serve: newWhatIfOptions().serve}
	cfg.Serve.Health.UnhealthyThreshold, cfg.Serve.Health.EvictionRate, cfg.Serve.Scheduler.ScoringStrategy = 0.7, 0.1, "MostAllocated"
	answerSays(t, rep, cfg,
		"--node-startup-grace-period 1m0s --unhealthy-fleet-threshold 0.7 --node-eviction-rate 0.1 --scheduler-scoring-strategy MostAllocated:",
		"the eviction of pod default/cache-* admin asked for at 2026-11-28T09:05:00Z would have been refused by PodDisruptionBudget default/cache (Cannot evict pod as it would violate the pod's disruption budget.); the pod stays",
	)
	// A client that asks again: refused to the window's end, or granted
	// later; an interval other than kubectl drain's is in the header.
	granted := at("2026-11-28T09:07:30Z")
	rep.RefusedEvictions = []whatif.RefusedEviction{
		{Pod: "default/cache-*", At: at("2026-11-28T09:05:00Z"), Actor: "admin", Budget: "default/cache", Cause: "no", Asks: 31},
		{Pod: "default/api-*", At: at("2026-11-28T09:07:00Z"), Actor: "admin", Budget: "default/api", Cause: "no", Asks: 4, GrantedAt: &granted},
		{Pod: "default/db-*", At: at("2026-11-28T09:07:00Z"), Actor: "admin", Budget: "default/db", Cause: "no", Asks: 2, GoneAt: &granted},
	}
	retry := 10 * time.Second
	cfg.EvictionRetry = &retry
	answerSays(t, rep, cfg,
		"--scheduler-scoring-strategy MostAllocated --eviction-retry 10s:",
		"would have been refused by PodDisruptionBudget default/cache (no), and the 30 asks after it too, to the window's end; the pod stays",
		"would have been refused by PodDisruptionBudget default/api (no); asked again, it would have been granted at 2026-11-28T09:07:30Z, on ask 4",
		"would have been refused by PodDisruptionBudget default/db (no); asked again, the pod had gone otherwise by 2026-11-28T09:07:30Z (ask 2)",
	)
	retry = 0
	answerSays(t, rep, cfg, "--eviction-retry 0s:")
	cfg.Serve.Scheduler.ScoringStrategy, cfg.Serve.Scheduler.Shape = scheduler.RequestedToCapacityRatio, scheduler.Shape{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}
	answerSays(t, rep, cfg, "--scheduler-scoring-strategy RequestedToCapacityRatio --scheduler-scoring-shape 0=0,100=10 --eviction-retry 0s:")
}

// TestWhatIfEvictionRetryFlag: --eviction-retry is kubectl drain's 5s
// unless given; 0 has a client ask once; a negative one is refused
// (TestWhatIfRefusesWhatItCannotAsk names it too).
func TestWhatIfEvictionRetryFlag(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		retry time.Duration
		want  time.Duration
		err   string
	}{{whatif.DefaultEvictionRetry, whatif.DefaultEvictionRetry, ""}, {0, 0, ""}, {time.Minute, time.Minute, ""}, {-time.Second, 0, "--eviction-retry -1s"}} {
		o := newWhatIfOptions()
		o.since, o.evictionRetry = "1h", tc.retry
		cfg, err := o.config(now)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("--eviction-retry %s: err = %v, want one naming %q", tc.retry, err, tc.err)
		case tc.err == "" && (err != nil || cfg.EvictionRetry == nil || *cfg.EvictionRetry != tc.want):
			t.Errorf("--eviction-retry %s: %v, %v; want %s", tc.retry, cfg.EvictionRetry, err, tc.want)
		}
	}
}
