package whatif

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// memLog is a log held in memory: it answers reads after a position, a
// page at a time, and queries by ID, and counts both.
type memLog struct {
	events.LogReader
	recs    []events.Record
	pages   int
	queried []string
}

func (l *memLog) ReadAfter(_ context.Context, position int64, limit int) ([]events.Record, error) {
	l.pages++
	var out []events.Record
	for _, r := range l.recs {
		if r.Position > position && (limit <= 0 || len(out) < limit) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (l *memLog) Query(_ context.Context, f events.Filter) ([]events.Record, error) {
	if f.ID == "" { // a stream's newest records of some types before a position
		var out []events.Record
		for _, r := range l.recs {
			if r.Stream == f.Stream && slices.Contains(f.Types, r.Type) && (f.Before == 0 || r.Position < f.Before) {
				out = append(out, r)
			}
		}
		if f.Newest && f.Limit > 0 && len(out) > f.Limit {
			out = out[len(out)-f.Limit:]
		}
		return out, nil
	}
	l.queried = append(l.queried, f.ID)
	for _, r := range l.recs {
		if r.ID == f.ID {
			return []events.Record{r}, nil
		}
	}
	return nil, nil
}

func (l *memLog) head() int64 { return l.recs[len(l.recs)-1].Position }

var compareStart = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)

// append adds a record s seconds into the window, its position the
// next.
func (l *memLog) append(id, typ, stream, actor, cause string, s int, payload string) events.Record {
	rec := events.Record{ID: id, Type: typ, Stream: stream, Position: int64(len(l.recs) + 1), RecordedAt: compareStart.Add(time.Duration(s) * time.Second),
		Payload: []byte(payload), Metadata: events.Metadata{Actor: actor, CausationID: cause}}
	l.recs = append(l.recs, rec)
	return rec
}

// The report lists only the first decisions by time, as many as asked,
// with their causes, and still counts every decision that differs: the
// limit cuts the lists, never the counts, and causes are read only for
// the decisions listed.
func TestTheCountsStayWholeWhenTheListIsCut(t *testing.T) {
	real, sim := &memLog{}, &memLog{}
	for _, l := range []*memLog{real, sim} {
		l.append(l.name("beat"), "NodeHeartbeatReceived", "node/web-01", "node:web-01", "", 0, `{}`)
		l.append(l.name("same"), "NodeTainted", "node/web-01", "system:herd:health", "", 1, `{"key":"same"}`)
	}
	for i := range 3 {
		real.append(fmt.Sprint("real-only-", i), "NodeTainted", "node/web-01", "system:herd:health", "", 10+i, fmt.Sprintf(`{"key":"real-%d"}`, i))
	}
	for i := range 5 {
		cause := sim.append(fmt.Sprint("cause-", i), "HeartbeatMissed", fmt.Sprint("node/web-0", i), "system:herd:health", "sim-beat", 20+2*i, `{}`)
		sim.append(fmt.Sprint("extra-", i), "NodeTainted", fmt.Sprint("node/web-0", i), "system:herd:noexecute", cause.ID, 21+2*i, fmt.Sprintf(`{"key":"extra-%d"}`, i))
	}

	var rep Report
	_, _, err := rep.compare(t.Context(), span{log: real, upTo: real.head()}, span{log: sim, upTo: sim.head()}, newCauseLog(sim), 2)
	if err != nil {
		t.Fatal(err)
	}
	// The health decisions of the simulation that cause the extra
	// taints are themselves only the simulation's: 5 + 5.
	if rep.Same != 1 || rep.MissingCount != 3 || rep.ExtraCount != 10 || !rep.Truncated || rep.Limit != 2 {
		t.Errorf("same %d, missing %d, extra %d, truncated %v, limit %d; want 1, 3, 10, true, 2", rep.Same, rep.MissingCount, rep.ExtraCount, rep.Truncated, rep.Limit)
	}
	at := func(s int) time.Time { return compareStart.Add(time.Duration(s) * time.Second) }
	wantMissing := []Decision{
		{Type: "NodeTainted", Stream: "node/web-01", Effect: `{"key":"real-0"}`, Actor: "system:herd:health", At: at(10)},
		{Type: "NodeTainted", Stream: "node/web-01", Effect: `{"key":"real-1"}`, Actor: "system:herd:health", At: at(11)},
	}
	if d := cmp.Diff(wantMissing, rep.Missing); d != "" {
		t.Errorf("the decisions only herd made, listed (-want +got):\n%s", d)
	}
	wantExtra := []Decision{
		{Type: "HeartbeatMissed", Stream: "node/web-00", Effect: `{}`, Actor: "system:herd:health", At: at(20)},
		{Type: "NodeTainted", Stream: "node/web-00", Effect: `{"key":"extra-0"}`, Actor: "system:herd:noexecute", At: at(21),
			Causes: []Cause{{Type: "HeartbeatMissed", Stream: "node/web-00", Actor: "system:herd:health", At: at(20)}}},
	}
	if d := cmp.Diff(wantExtra, rep.Extra); d != "" {
		t.Errorf("the decisions only the what-if made, listed (-want +got):\n%s", d)
	}
	// The first extra's cause is not in the log: its chain ends there.
	if d := cmp.Diff([]string{"sim-beat", "cause-0"}, sim.queried); d != "" {
		t.Errorf("the causes read (-want +got):\n%s", d)
	}

	var all Report
	if _, _, err := all.compare(t.Context(), span{log: real, upTo: real.head()}, span{log: sim, upTo: sim.head()}, newCauseLog(sim), 100); err != nil {
		t.Fatal(err)
	}
	if all.Truncated || len(all.Missing) != 3 || len(all.Extra) != 10 || all.MissingCount != 3 || all.ExtraCount != 10 {
		t.Errorf("with room for all: listed %d of %d missing, %d of %d extra, truncated %v", len(all.Missing), all.MissingCount, len(all.Extra), all.ExtraCount, all.Truncated)
	}
}

func (l *memLog) name(s string) string { return fmt.Sprintf("%s-%p", s, l) }

// The window is read a page at a time: a window longer than a page is
// compared whole, its decisions counted, never read in one piece.
func TestTheWindowIsReadAPageAtATime(t *testing.T) {
	real, sim := &memLog{}, &memLog{}
	n := seedBatch*2 + 7
	for i := range n {
		real.append(fmt.Sprint("r", i), "NodeTainted", "node/web-01", "system:herd:health", "", i, fmt.Sprintf(`{"key":"%d"}`, i))
		sim.append(fmt.Sprint("s", i), "NodeTainted", "node/web-01", "system:herd:health", "", i, fmt.Sprintf(`{"key":"%d"}`, i+1))
	}
	var rep Report
	if _, _, err := rep.compare(t.Context(), span{log: real, upTo: real.head()}, span{log: sim, upTo: sim.head()}, newCauseLog(sim), 1); err != nil {
		t.Fatal(err)
	}
	if rep.Same != n-1 || rep.MissingCount != 1 || rep.ExtraCount != 1 {
		t.Errorf("same %d, missing %d, extra %d; want %d, 1, 1", rep.Same, rep.MissingCount, rep.ExtraCount, n-1)
	}
	if len(rep.Missing) != 1 || rep.Missing[0].Effect != `{"key":"0"}` || len(rep.Extra) != 1 || rep.Extra[0].Effect != fmt.Sprintf(`{"key":"%d"}`, n) {
		t.Errorf("listed missing %+v, extra %+v", rep.Missing, rep.Extra)
	}
	if real.pages < 3 {
		t.Errorf("the real window of %d records was read in %d pages", n, real.pages)
	}
}

// Of the statuses a reconciler records for one object in one burst only
// the last is a decision; a status that ends no burst is one when the
// window ends.
func TestOnlyTheLastStatusOfABurstIsADecision(t *testing.T) {
	l := &memLog{}
	l.append("a", "PodStatusRecorded", "pod/default/web", "system:herd:zones", "", 0, `{"phase":"Pending"}`)
	l.append("b", "PodStatusRecorded", "pod/default/web", "system:herd:zones", "", 1, `{"phase":"Running"}`)
	l.append("c", "NodeTainted", "node/web-01", "system:herd:health", "", 2, `{}`)
	l.append("d", "PodStatusRecorded", "pod/default/web", "system:herd:zones", "", 10, `{"phase":"Failed"}`)
	l.append("e", "PodStatusRecorded", "pod/default/web", "system:herd:zones", "", 11, `{"phase":"Succeeded"}`)
	var got []string
	err := span{log: l, upTo: l.head()}.decisions(t.Context(), nil, nil, func(rec events.Record, _ Decision) { got = append(got, rec.ID) })
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"c", "b", "e"}, got); d != "" {
		t.Errorf("the decisions (-want +got):\n%s", d)
	}
}

// A cause is read from the log by its ID once, however many chains it
// is in.
func TestACauseIsReadOnce(t *testing.T) {
	l := &memLog{}
	root := l.append("root", "NodeRegistered", "node/web-01", "node:web-01", "", 0, `{}`)
	turned := l.append("turned", "NodeConditionChanged", "node/web-01", "system:herd:health", root.ID, 10, `{}`)
	log := newCauseLog(l)
	for range 2 {
		got := causesFrom(t.Context(), log, turned.ID, nil)
		want := []Cause{
			{Type: "NodeConditionChanged", Stream: "node/web-01", Actor: "system:herd:health", At: turned.RecordedAt},
			{Type: "NodeRegistered", Stream: "node/web-01", Actor: "node:web-01", At: root.RecordedAt},
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("the chain of causes (-want +got):\n%s", d)
		}
	}
	if d := cmp.Diff([]string{"turned", "root"}, l.queried); d != "" {
		t.Errorf("the causes read (-want +got):\n%s", d)
	}
	if got := causesFrom(t.Context(), log, "gone", nil); len(got) != 0 {
		t.Errorf("a cause the log does not hold: %+v, want an empty chain", got)
	}
}

// A workload's pods evicted in one pass come in another order in the
// what-if than in herd (herd evicts them concurrently), a second apart:
// the same evictions, not a pod that fared differently. One from
// another node, or by another reconciler, still is.
func TestEvictionsOfOnePassInAnotherOrderAreTheSame(t *testing.T) {
	at := func(s int) time.Time { return compareStart.Add(time.Duration(s) * time.Second) }
	herd := []Eviction{{"b-01", at(301), "noexecute"}, {"b-14", at(301), "noexecute"}, {"b-03", at(301), "noexecute"}, {"b-01", at(302), "noexecute"}}
	whatIf := []Eviction{{"b-03", at(300), "noexecute"}, {"b-01", at(300), "noexecute"}, {"b-01", at(301), "noexecute"}, {"b-14", at(300), "noexecute"}}
	elsewhere := slices.Clone(whatIf)
	elsewhere[0].Node = "b-04"
	drained := slices.Clone(whatIf)
	drained[2].By = "drain"
	for _, c := range []struct {
		name   string
		whatIf []Eviction
		differ bool
	}{
		{"the same evictions in another order", whatIf, false},
		{"one from another node", elsewhere, true},
		{"one by another reconciler", drained, true},
		{"one fewer", whatIf[1:], true},
	} {
		r := Report{Actual: Outcome{Evicted: map[string][]Eviction{"default/web-abc-*": herd}},
			WhatIf: Outcome{Evicted: map[string][]Eviction{"default/web-abc-*": c.whatIf}}}
		r.differences(t.Context(), &outcomeFold{}, nil, nil)
		if got := len(r.Pods) == 1; got != c.differ {
			t.Errorf("%s: the pod fared differently %v, want %v (%+v)", c.name, got, c.differ, r.Pods)
		}
	}
	// The answer lists herd's evictions as herd made them.
	if herd[1].Node != "b-14" || herd[3].Node != "b-01" {
		t.Errorf("the comparison reordered herd's own list: %+v", herd)
	}
}

// A pod whose name outlives it (a StatefulSet's db-1) was deleted by its
// StatefulSet in a rolling update, then, in the what-if only, evicted by
// a drain: the chain of causes of that eviction starts from the drain's
// deletion, not from the rolling update's, the pod name's first.
func TestAnEvictionsCausesStartFromTheEvictionThatDiffers(t *testing.T) {
	l := &memLog{}
	edit := l.append("edit", "StatefulSetChanged", "statefulset/default/db", "system:anonymous", "", 0, `{}`)
	l.append("placed", "PodScheduled", "pod/default/db-1", "system:herd:scheduler", "", 1, `{"nodeName":"n1"}`)
	l.append("rolled", "PodDeletionRequested", "pod/default/db-1", "system:herd:statefulset", edit.ID, 10, `{}`)
	l.append("placed-again", "PodScheduled", "pod/default/db-1", "system:herd:scheduler", "", 11, `{"nodeName":"n1"}`)
	drain := l.append("drain", "NodeDrainStarted", "node/n1", "what-if", "", 100, `{}`)
	evicted := l.append("evicted", "PodDeletionRequested", "pod/default/db-1", "system:herd:drain", drain.ID, 100, `{}`)
	sim := newOutcomeFold(nil)
	sim.watch()
	for _, rec := range l.recs {
		sim.add(rec)
	}
	r := Report{Actual: Outcome{Evicted: map[string][]Eviction{}}, WhatIf: sim.outcome()}
	r.differences(t.Context(), sim, nil, newCauseLog(l))
	if len(r.Pods) != 1 {
		t.Fatalf("pods that fared differently: %+v, want db-1", r.Pods)
	}
	want := []Cause{
		{Type: "PodDeletionRequested", Stream: "pod/default/db-1", Actor: "system:herd:drain", At: evicted.RecordedAt},
		{Type: "NodeDrainStarted", Stream: "node/n1", Actor: "what-if", At: drain.RecordedAt},
	}
	if d := cmp.Diff(want, r.Pods[0].Causes); d != "" {
		t.Errorf("the eviction's causes (-want +got):\n%s", d)
	}
}

// A pod placed before the window and evicted in it was evicted from the
// node it was placed on then, in herd's outcome as in the what-if's, not
// from no node.
func TestAPodPlacedBeforeTheWindowIsEvictedFromItsNode(t *testing.T) {
	real, sim := &memLog{}, &memLog{}
	for _, l := range []*memLog{real, sim} {
		l.append("placed", "PodScheduled", "pod/default/db-0", "system:herd:scheduler", "", 0, `{"nodeName":"n1"}`)
	}
	real.append("evicted", "PodDeletionRequested", "pod/default/db-0", "system:herd:drain", "", 10, `{}`)
	var r Report
	if _, _, err := r.compare(t.Context(), span{log: real, after: 1, upTo: real.head()}, span{log: sim, after: 1, upTo: sim.head()}, newCauseLog(sim), 10); err != nil {
		t.Fatal(err)
	}
	got := r.Actual.Evicted["default/db-0"]
	if len(got) != 1 || got[0].Node != "n1" {
		t.Errorf("herd's evictions of db-0: %+v, want one from n1", got)
	}
}
