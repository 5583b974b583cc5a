package whatif

import (
	"context"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"herd/domain"
	"herd/events"
)

// Report is what a what-if found: the window, its inputs, and every
// decision of herd's reconcilers that the simulation made otherwise.
type Report struct {
	// Since and Until bound the window; From and To are its first and
	// last positions in the real log, Events how many it held, Inputs
	// how many commands from outside the simulation was fed.
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
	From   int64     `json:"from"`
	To     int64     `json:"to"`
	Events int       `json:"events"`
	Inputs int       `json:"inputs"`
	// Orphans counts the inputs about pods the simulation never made (a
	// node's word on a pod a workload created in herd but not in the
	// what-if): they are left out.
	Orphans int `json:"orphans"`
	// Downtimes are the stretches of the window in which herd was down:
	// the simulation runs no reconciler then either. They are inputs,
	// not differences.
	Downtimes []Downtime `json:"downtimes"`
	// Same counts the decisions both logs hold. Missing are the real
	// log's decisions the simulation did not make; Extra the
	// simulation's the real log does not hold, each with its causes.
	Same    int        `json:"same"`
	Missing []Decision `json:"missing"`
	Extra   []Decision `json:"extra"`
	// Actual is what the real log's reconcilers did; WhatIf what the
	// simulation's did.
	Actual Outcome `json:"actual"`
	WhatIf Outcome `json:"whatIf"`
	// Nodes, Pods and Placements are the outcomes that differ.
	Nodes      []NodeDifference      `json:"nodes"`
	Pods       []PodDifference       `json:"pods"`
	Placements []PlacementDifference `json:"placements"`
	// Workloads are the workloads that spent another time below their
	// desired availability.
	Workloads []WorkloadDifference `json:"workloads"`
}

// Decision is one event a reconciler appended, as the comparison sees
// it: its type, its object (a pod a workload named is its owner's name
// and "*"), and its effect (the payload without times, ids and
// positions).
type Decision struct {
	Type   string    `json:"type"`
	Stream string    `json:"stream"`
	Effect string    `json:"effect"`
	Actor  string    `json:"actor"`
	At     time.Time `json:"at"`
	// Causes is the chain of causes of a decision of the simulation,
	// nearest first, as `herd why` follows them.
	Causes []Cause `json:"causes,omitempty"`
}

// Cause is one link of a chain of causes.
type Cause struct {
	Type   string    `json:"type"`
	Stream string    `json:"stream"`
	Actor  string    `json:"actor"`
	At     time.Time `json:"at"`
}

// Outcome is what herd's reconcilers did in a window.
type Outcome struct {
	// NotReady is, per node, each time its Ready went Unknown.
	NotReady map[string][]time.Time `json:"notReady"`
	// Evicted is, per pod ("namespace/name"; a pod a workload named is
	// its owner's name and "*"), each eviction: a NoExecute taint's or
	// a drain's.
	Evicted map[string][]Eviction `json:"evicted"`
	// Placed is, per pod, each node the scheduler placed it on.
	Placed map[string][]string `json:"placed"`
	// Below is, per workload ("deployment default/api"), how long it had
	// fewer available pods than it asks for in the window, every
	// workload that did; Report.Workloads picks those that differ.
	Below Durations `json:"belowDesired"`
}

// Eviction is one pod evicted from a node.
type Eviction struct {
	Node string    `json:"node"`
	At   time.Time `json:"at"`
	By   string    `json:"by"`
}

// NodeDifference is a node that went NotReady at other times, or not.
type NodeDifference struct {
	Node   string      `json:"node"`
	Actual []time.Time `json:"actual"`
	WhatIf []time.Time `json:"whatIf"`
	// Causes is why the simulation marked the node, for its first mark.
	Causes []Cause `json:"causes"`
}

// PodDifference is a pod evicted otherwise, or not.
type PodDifference struct {
	Pod    string     `json:"pod"`
	Actual []Eviction `json:"actual"`
	WhatIf []Eviction `json:"whatIf"`
	Causes []Cause    `json:"causes"`
}

// PlacementDifference is a pod (or a workload's pods) placed on other
// nodes.
type PlacementDifference struct {
	Pod    string   `json:"pod"`
	Actual []string `json:"actual"`
	WhatIf []string `json:"whatIf"`
	Causes []Cause  `json:"causes"`
}

// startedType is the stored type of the health rules' start record.
var startedType = domain.HealthMonitorStarted{}.EventType()

// statusBurst is how close together the statuses a reconciler records
// for one object must come to be one burst of work, of which only the
// last counts: longer than herd takes, on a busy machine, to work
// through what one input gave its reconcilers (a Deployment created:
// its ReplicaSet, pods, placements, addresses, pods started, a few
// hundred milliseconds on the wall clock), shorter than the report
// interval of herd's agents and the demo's nodes (10 s).
const statusBurst = 2 * time.Second

// decisions are the reconcilers' events among recs. Of the statuses a
// reconciler records for one object in one burst (each less than
// statusBurst after the one before) only the last counts: a status
// counted while other reconcilers were still at work (a Deployment's
// while its ReplicaSet's pods were being created, placed and started,
// or while its pod was being evicted and replaced) depends on which of
// them the machine ran first and how fast. herd on the wall clock
// records such statuses milliseconds apart; the simulation, whose clock
// stands still while its reconcilers work, records them at one instant.
// The last is the one every later decision read.
func decisions(recs []events.Record) []events.Record {
	var out []events.Record
	last := map[string]int{}
	for _, r := range recs {
		if !decided(r) || r.Type == startedType {
			continue
		}
		if strings.HasSuffix(r.Type, "StatusRecorded") {
			k := r.Type + "\x00" + r.Stream
			if i, ok := last[k]; ok && r.RecordedAt.Sub(out[i].RecordedAt) < statusBurst {
				out[i] = r
				continue
			}
			last[k] = len(out)
		}
		out = append(out, r)
	}
	return out
}

// generatedNames maps each pod a workload's reconciler named in recs to
// its owner's name and "*": the suffix is drawn at random, the same pod
// in two runs has two names.
func generatedNames(recs []events.Record) map[string]string {
	out := map[string]string{}
	for _, r := range recs {
		if r.Type != (domain.PodCreated{}).EventType() || !decided(r) {
			continue
		}
		key, ok := domain.PodAggregate.Key(r.Stream)
		if !ok {
			continue
		}
		if owner := generatedOwner(key); owner != "" {
			_, name, _ := strings.Cut(key, "/")
			_, canon, _ := strings.Cut(owner, "/")
			out[name] = canon
		}
	}
	return out
}

var (
	uidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// addressPattern is a pod's IPv4 address (not a pool's CIDR): which
	// free address of a pool a pod gets depends on whether another pod's
	// address was released a moment before, at the same instant, which
	// the machine decides, in herd as in the simulation.
	addressPattern = regexp.MustCompile(`"(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})"`)
)

// canonical writes s with the generated names replaced.
func canonical(s string, names map[string]string) string {
	for _, n := range slices.Sorted(maps.Keys(names)) {
		s = strings.ReplaceAll(s, n, names[n])
	}
	return s
}

// effect is a payload without what differs between two runs of the same
// decision: times, UIDs, resourceVersions, pods' addresses.
func effect(payload []byte, names map[string]string) string {
	var v any
	if err := json.Unmarshal([]byte(canonical(string(payload), names)), &v); err != nil {
		return string(payload)
	}
	v = strip(v)
	b, _ := json.Marshal(v)
	return addressPattern.ReplaceAllString(uidPattern.ReplaceAllString(string(b), "<uid>"), `"<address>"`)
}

func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "resourceVersion" || isTime(e) {
				delete(x, k)
				continue
			}
			x[k] = strip(e)
		}
	case []any:
		for i, e := range x {
			x[i] = strip(e)
		}
	}
	return v
}

func isTime(v any) bool {
	s, ok := v.(string)
	if !ok || len(s) < 20 {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// decisionOf is rec as the comparison sees it.
func decisionOf(rec events.Record, names map[string]string) Decision {
	return Decision{Type: rec.Type, Stream: canonical(rec.Stream, names), Effect: effect(rec.Payload, names), Actor: rec.Metadata.Actor, At: rec.RecordedAt}
}

func (d Decision) key() string { return d.Type + "\x00" + d.Stream + "\x00" + d.Effect }

// compare holds the real window's decisions against the simulation's.
func (r *Report) compare(ctx context.Context, real, simulated []events.Record, simLog causeLog) {
	realNames, simNames := generatedNames(real), generatedNames(simulated)
	byKey := map[string][]Decision{}
	for _, rec := range decisions(real) {
		d := decisionOf(rec, realNames)
		byKey[d.key()] = append(byKey[d.key()], d)
	}
	for _, rec := range decisions(simulated) {
		d := decisionOf(rec, simNames)
		if same := byKey[d.key()]; len(same) > 0 {
			byKey[d.key()] = same[1:]
			r.Same++
			continue
		}
		d.Causes = causes(ctx, simLog, rec, simNames)
		r.Extra = append(r.Extra, d)
	}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		r.Missing = append(r.Missing, byKey[k]...)
	}
	slices.SortStableFunc(r.Missing, func(a, b Decision) int { return a.At.Compare(b.At) })
	r.Actual = outcome(real, realNames)
	r.WhatIf = outcome(simulated, simNames)
	r.differences(ctx, simulated, simNames, simLog)
}

// causeLog is the simulated log as the report follows causes in it: a
// cause in the simulated window is found among its records, which the
// report holds (an hour of a fleet's decisions followed a query each),
// one from before the window in the log.
type causeLog struct {
	events.LogReader
	recs []events.Record
	// byID is each record's index in recs: an hour's records are tens of
	// thousands, held once.
	byID map[string]int
}

// newCauseLog is log, its window's records recs found by ID.
func newCauseLog(log events.LogReader, recs []events.Record) causeLog {
	byID := make(map[string]int, len(recs))
	for i, rec := range recs {
		byID[rec.ID] = i
	}
	return causeLog{LogReader: log, recs: recs, byID: byID}
}

// record is the record whose ID is id; false when the log holds none (or
// cannot be read: the chain of causes ends there).
func (l causeLog) record(ctx context.Context, id string) (events.Record, bool) {
	if i, ok := l.byID[id]; ok {
		return l.recs[i], true
	}
	recs, err := l.Query(ctx, events.Filter{ID: id, Limit: 1})
	if err != nil || len(recs) == 0 {
		return events.Record{}, false
	}
	return recs[0], true
}

// maxCauses bounds a chain of causes.
const maxCauses = 8

// causes follows rec's causes back in log, nearest first.
func causes(ctx context.Context, log causeLog, rec events.Record, names map[string]string) []Cause {
	var out []Cause
	for id := rec.Metadata.CausationID; id != "" && len(out) < maxCauses; {
		c, ok := log.record(ctx, id)
		if !ok {
			break
		}
		out = append(out, Cause{Type: c.Type, Stream: canonical(c.Stream, names), Actor: c.Metadata.Actor, At: c.RecordedAt})
		id = c.Metadata.CausationID
	}
	return out
}

func readyUnknown(c domain.NodeConditionChanged) bool {
	return c.Type == domain.ConditionReady && c.Status == domain.ConditionUnknown
}

// evictors are the reconcilers whose deletion of a pod is an eviction.
var evictors = []string{"system:herd:noexecute", "system:herd:drain"}

// outcome reads what the reconcilers did in recs.
func outcome(recs []events.Record, names map[string]string) Outcome {
	o := Outcome{NotReady: map[string][]time.Time{}, Evicted: map[string][]Eviction{}, Placed: map[string][]string{}}
	onNode := map[string]string{}
	for _, rec := range recs {
		if rec.Type == (domain.PodScheduled{}).EventType() {
			if ev, err := decodeEvent(rec); err == nil {
				onNode[rec.Stream] = ev.(domain.PodScheduled).NodeName
			}
		}
		if !decided(rec) {
			continue
		}
		switch rec.Type {
		case domain.NodeConditionChanged{}.EventType(), domain.HeartbeatMissed{}.EventType():
			ev, err := decodeEvent(rec)
			if err == nil && domain.Holds(ev, readyUnknown) {
				name, _ := domain.NodeAggregate.Key(rec.Stream)
				o.NotReady[name] = append(o.NotReady[name], rec.RecordedAt)
			}
		case domain.PodDeletionRequested{}.EventType():
			if slices.Contains(evictors, rec.Metadata.Actor) {
				key, _ := domain.PodAggregate.Key(rec.Stream)
				key = canonical(key, names)
				o.Evicted[key] = append(o.Evicted[key], Eviction{Node: onNode[rec.Stream], At: rec.RecordedAt, By: rec.Metadata.Actor})
			}
		case domain.PodScheduled{}.EventType():
			key, _ := domain.PodAggregate.Key(rec.Stream)
			key = canonical(key, names)
			o.Placed[key] = append(o.Placed[key], onNode[rec.Stream])
		}
	}
	for _, nodes := range o.Placed {
		slices.Sort(nodes)
	}
	return o
}

// nearTolerance is how far apart two times of one outcome may be and
// still count as the same: the health rules' passes in the simulation
// need not fall on the real ones' instants.
func (r *Report) nearTolerance() time.Duration { return 6 * time.Second }

// differences lists the outcomes that differ, each simulated one with
// the causes the simulated log gives it.
func (r *Report) differences(ctx context.Context, simulated []events.Record, names map[string]string, simLog causeLog) {
	tol := r.nearTolerance()
	near := func(a, b time.Time) bool { d := a.Sub(b); return d <= tol && d >= -tol }
	first := func(match func(events.Record) bool) []Cause {
		for _, rec := range simulated {
			if decided(rec) && match(rec) {
				return append([]Cause{{Type: rec.Type, Stream: canonical(rec.Stream, names), Actor: rec.Metadata.Actor, At: rec.RecordedAt}},
					causes(ctx, simLog, rec, names)...)
			}
		}
		return nil
	}
	for _, n := range unionKeys(r.Actual.NotReady, r.WhatIf.NotReady) {
		a, w := r.Actual.NotReady[n], r.WhatIf.NotReady[n]
		same := len(a) == len(w)
		for i := 0; same && i < len(a); i++ {
			same = near(a[i], w[i])
		}
		if !same {
			r.Nodes = append(r.Nodes, NodeDifference{Node: n, Actual: a, WhatIf: w, Causes: first(func(rec events.Record) bool {
				return rec.Stream == domain.NodeStream(n) && (rec.Type == domain.HeartbeatMissed{}.EventType() || rec.Type == domain.NodeConditionChanged{}.EventType())
			})})
		}
	}
	for _, p := range unionKeys(r.Actual.Evicted, r.WhatIf.Evicted) {
		a, w := r.Actual.Evicted[p], r.WhatIf.Evicted[p]
		same := len(a) == len(w)
		for i := 0; same && i < len(a); i++ {
			same = a[i].Node == w[i].Node && a[i].By == w[i].By && near(a[i].At, w[i].At)
		}
		if !same {
			r.Pods = append(r.Pods, PodDifference{Pod: p, Actual: a, WhatIf: w, Causes: first(func(rec events.Record) bool {
				key, _ := domain.PodAggregate.Key(rec.Stream)
				return canonical(key, names) == p && rec.Type == domain.PodDeletionRequested{}.EventType()
			})})
		}
	}
	for _, p := range unionKeys(r.Actual.Placed, r.WhatIf.Placed) {
		a, w := r.Actual.Placed[p], r.WhatIf.Placed[p]
		if !slices.Equal(a, w) {
			// The placement that differs is the first of the what-if's
			// on a node beyond those herd placed there: its causes say
			// why the pod moved (a pod made anew for one a drain
			// evicted), not why it was first placed.
			left := map[string]int{}
			for _, n := range a {
				left[n]++
			}
			scheduled := func(rec events.Record) bool {
				key, _ := domain.PodAggregate.Key(rec.Stream)
				return canonical(key, names) == p && rec.Type == domain.PodScheduled{}.EventType()
			}
			causes := first(func(rec events.Record) bool {
				if !scheduled(rec) {
					return false
				}
				ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
				if err != nil {
					return false
				}
				n := ev.(domain.PodScheduled).NodeName
				if left[n] > 0 {
					left[n]--
					return false
				}
				return true
			})
			if causes == nil {
				causes = first(scheduled)
			}
			causes = replacing(ctx, simLog, simulated, names, causes)
			r.Placements = append(r.Placements, PlacementDifference{Pod: p, Actual: a, WhatIf: w, Causes: causes})
		}
	}
}

// replacing is the chain of causes of a placement, in which a pod a
// workload made anew for one of its pods that was evicted goes back to
// that eviction, and on to its own causes (the drain, the taint): the
// workload's reconciler records its spec as the cause of every pod it
// creates (`herd why` follows that), but a pod made to replace an
// evicted one moved because of the eviction. The eviction is the newest
// of the owner's pods (canonically the same name) before the pod's
// creation, when it is newer than the cause the creation records.
func replacing(ctx context.Context, simLog causeLog, simulated []events.Record, names map[string]string, chain []Cause) []Cause {
	if len(chain) < 2 || chain[1].Type != (domain.PodCreated{}).EventType() {
		return chain
	}
	created := slices.IndexFunc(simulated, func(rec events.Record) bool {
		return rec.Type == chain[1].Type && canonical(rec.Stream, names) == chain[1].Stream && rec.RecordedAt.Equal(chain[1].At) && decided(rec)
	})
	if created < 0 {
		return chain
	}
	spec := simulated[created].Metadata.CausationID
	for i := created - 1; i >= 0; i-- {
		rec := simulated[i]
		if rec.ID != "" && rec.ID == spec {
			return chain // the owner's own change is newer than any eviction
		}
		if rec.Type != (domain.PodDeletionRequested{}).EventType() || !slices.Contains(evictors, rec.Metadata.Actor) ||
			canonical(rec.Stream, names) != chain[1].Stream || rec.Stream == simulated[created].Stream {
			continue
		}
		out := append(slices.Clone(chain[:2]), Cause{Type: rec.Type, Stream: canonical(rec.Stream, names), Actor: rec.Metadata.Actor, At: rec.RecordedAt})
		return append(out, causes(ctx, simLog, rec, names)...)
	}
	return chain
}

// availability holds how long each workload spent below its desired
// availability in the real window (read from source up to the window's
// end) against the simulation's (read from simLog).
func (r *Report) availability(ctx context.Context, source events.LogReader, simLog causeLog, real, simulated []events.Record) error {
	var err error
	if r.Actual.Below, _, err = below(ctx, source, real, r.Since, r.Until, r.To); err != nil {
		return err
	}
	simNames := generatedNames(simulated)
	var first map[string]events.Record
	if r.WhatIf.Below, first, err = below(ctx, simLog, simulated, r.Since, r.Until, 0); err != nil {
		return err
	}
	tol := r.nearTolerance()
	for _, w := range unionKeys(r.Actual.Below, r.WhatIf.Below) {
		a, b := r.Actual.Below[w], r.WhatIf.Below[w]
		if d := a - b; d <= tol && d >= -tol {
			continue
		}
		diff := WorkloadDifference{Workload: w, Actual: a, WhatIf: b}
		if rec, ok := first[w]; ok {
			diff.Causes = append([]Cause{{Type: rec.Type, Stream: rec.Stream, Actor: rec.Metadata.Actor, At: rec.RecordedAt}}, causes(ctx, simLog, rec, simNames)...)
		}
		r.Workloads = append(r.Workloads, diff)
	}
	return nil
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return slices.Sorted(maps.Keys(keys))
}

// SameNodes counts the nodes that went NotReady in either run, and the
// same in both.
func (r Report) SameNodes() int {
	return len(unionKeys(r.Actual.NotReady, r.WhatIf.NotReady)) - len(r.Nodes)
}

// SamePods counts the pods evicted in either run, and the same in both.
func (r Report) SamePods() int {
	return len(unionKeys(r.Actual.Evicted, r.WhatIf.Evicted)) - len(r.Pods)
}
