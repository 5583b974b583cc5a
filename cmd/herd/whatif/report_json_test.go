package whatif

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The answer over the API gives each workload's whole time below its
// desired availability, real and simulated, not only the ones that
// differ, in the durations herd writes everywhere else.
func TestTheAnswerGivesEveryWorkloadsTimeBelowDesired(t *testing.T) {
	rep := Report{
		Actual: Outcome{Below: Durations{"deployment default/api": 90 * time.Second, "replicaset default/cache": 0}},
		WhatIf: Outcome{Below: Durations{"deployment default/api": 90 * time.Second}},
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"actual":{`, `"belowDesired":{"deployment default/api":"1m30s","replicaset default/cache":"0s"}`, `"belowDesired":{"deployment default/api":"1m30s"}`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the answer %s does not hold %s", data, want)
		}
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Actual.Below["deployment default/api"] != 90*time.Second || len(back.Actual.Below) != 2 || len(back.WhatIf.Below) != 1 {
		t.Errorf("read back %v / %v", back.Actual.Below, back.WhatIf.Below)
	}
	if err := json.Unmarshal([]byte(`{"actual":{"belowDesired":{"deployment default/api":"soon"}}}`), &back); err == nil || !strings.Contains(err.Error(), "deployment default/api") {
		t.Errorf("a time that is no duration read as %v", err)
	}
}

// A day's answer over the API stays small: every node's and pod's lists
// give their first Listed items and count the rest, in the outcomes as
// in the differences, and what is read back says the same as the whole.
func TestTheAnswerListsTheFirstTimesAndCountsThemAll(t *testing.T) {
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	day := make([]time.Time, 360)
	for i := range day {
		day[i] = start.Add(time.Duration(i) * 4 * time.Minute)
	}
	evictions := []Eviction{{Node: "a", At: day[0], By: "x"}, {Node: "b", At: day[1], By: "x"}}
	rep := Report{
		Actual: Outcome{NotReady: map[string][]time.Time{"web-01": day[:1], "web-02": day[:6]}, Evicted: map[string][]Eviction{"default/api-*": evictions}},
		WhatIf: Outcome{NotReady: map[string][]time.Time{"web-01": day, "web-02": day[:6]}},
		Nodes:  []NodeDifference{{Node: "web-01", Actual: day[:1], WhatIf: day}},
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 2000 {
		t.Errorf("an answer of one node with 360 times is %d bytes: %s", len(data), data)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.WhatIf.NotReady["web-01"]; len(got) != Listed || !got[Listed-1].Equal(day[Listed-1]) {
		t.Errorf("the what-if's outcome lists %v of web-01's times, want the first %d", got, Listed)
	}
	if got := back.WhatIf.NotReadyCount["web-01"]; got != 360 {
		t.Errorf("the what-if's outcome counts %d of web-01's times, want 360", got)
	}
	if got := back.Actual.NotReady["web-02"]; len(got) != 6 || back.Actual.NotReadyCount["web-02"] != 6 {
		t.Errorf("web-02's six times read back as %v, counted %d: want all six listed", got, back.Actual.NotReadyCount["web-02"])
	}
	if back.Actual.EvictedCount["default/api-*"] != 2 || len(back.Actual.Evicted["default/api-*"]) != 2 {
		t.Errorf("the evictions read back as %v, counted %v", back.Actual.Evicted, back.Actual.EvictedCount)
	}
	a, w := back.Nodes[0].Times()
	wantA, wantW := rep.Nodes[0].Times()
	if a.Count != 1 || a.More() != 0 || !a.Last.Equal(day[0]) {
		t.Errorf("herd's times of web-01 read back as %+v, want %+v", a, wantA)
	}
	if w.Count != 360 || w.More() != 360-Listed || len(w.First) != Listed || !w.Last.Equal(day[359]) {
		t.Errorf("the what-if's times of web-01 read back as %d listed, %d in all, the last %s; want %d, %d, %s",
			len(w.First), w.Count, w.Last, len(wantW.First), wantW.Count, wantW.Last)
	}
}
