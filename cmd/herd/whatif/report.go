package whatif

import (
	"cmp"
	"context"
	"crypto/sha256"
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
	// how many of its commands from outside herd (nodes, agents,
	// operators) the simulation was fed; those the question adds (a
	// drain, a failure, a budget's change) are not among them.
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
	// RefusedEvictions are the evictions clients asked of the Eviction
	// API (kubectl drain) that herd granted and the pod's budget, as the
	// what-if has it, refused: those pods stay until a client's later
	// ask is granted, if one is.
	RefusedEvictions []RefusedEviction `json:"refusedEvictions,omitempty"`
	// Downtimes are the stretches of the window in which herd was down:
	// the simulation runs no reconciler then either. They are inputs,
	// not differences.
	Downtimes []Downtime `json:"downtimes"`
	// Cut, when set, says that the window asked for reached past the
	// log's end by more than a grace period: herd recorded nothing
	// after it (it was down, or is stopped now), so the window ends
	// there, and herd's silence is not taken for the fleet's.
	Cut *WindowCut `json:"cut,omitempty"`
	// Same counts the decisions both logs hold. MissingCount counts the
	// real log's decisions the simulation did not make, ExtraCount the
	// simulation's the real log does not hold: always every one.
	Same         int `json:"same"`
	MissingCount int `json:"missingCount"`
	ExtraCount   int `json:"extraCount"`
	// Missing and Extra list the first of those decisions by time, at
	// most Limit of each, each of Extra with its causes; Truncated says
	// that a list holds fewer than its count.
	Limit     int        `json:"limit"`
	Truncated bool       `json:"truncated"`
	Missing   []Decision `json:"missing"`
	Extra     []Decision `json:"extra"`
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

// WindowCut is a window's end asked for past the log's end, and where
// the log ends.
type WindowCut struct {
	Asked  time.Time `json:"asked"`
	LogEnd time.Time `json:"logEnd"`
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

// RefusedEviction is an eviction a client asked for that the what-if's
// budget refused: the pod (a workload's as "name-*"), when and by whom it
// was asked, the budget and its words; how many times the client asked
// in all (it asks again every Config.EvictionRetry) and, when one of
// those asks was granted, when; or, when the pod had gone otherwise by
// an ask (another eviction, a deletion), when that ask found it gone.
// Neither: the pod stayed to the window's end.
type RefusedEviction struct {
	Pod       string     `json:"pod"`
	At        time.Time  `json:"at"`
	Actor     string     `json:"actor"`
	Budget    string     `json:"budget"`
	Cause     string     `json:"cause"`
	Asks      int        `json:"asks"`
	GrantedAt *time.Time `json:"grantedAt,omitempty"`
	GoneAt    *time.Time `json:"goneAt,omitempty"`
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
	// NotReady is, per node, each time its Ready went Unknown. An answer
	// written as JSON lists each node's first times (Listed) and counts
	// them all in NotReadyCount.
	NotReady      map[string][]time.Time `json:"notReady"`
	NotReadyCount map[string]int         `json:"notReadyCount,omitempty"`
	// Evicted is, per pod ("namespace/name"; a pod a workload named is
	// its owner's name and "*"), each eviction: a NoExecute taint's or
	// a drain's. As JSON, each pod's first evictions, all of them
	// counted in EvictedCount.
	Evicted      map[string][]Eviction `json:"evicted"`
	EvictedCount map[string]int        `json:"evictedCount,omitempty"`
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
// As JSON it lists the first times of each (Listed) and gives how many
// there are in all and the last; Times reads it either way.
type NodeDifference struct {
	Node        string      `json:"node"`
	Actual      []time.Time `json:"actual"`
	WhatIf      []time.Time `json:"whatIf"`
	ActualCount int         `json:"actualCount"`
	WhatIfCount int         `json:"whatIfCount"`
	ActualLast  time.Time   `json:"actualLast,omitzero"`
	WhatIfLast  time.Time   `json:"whatIfLast,omitzero"`
	// Causes is why the simulation marked the node, for its first mark.
	Causes []Cause `json:"causes"`
}

// PodDifference is a pod evicted otherwise, or not. As JSON it lists
// the first evictions of each (Listed), with the count and the last;
// Evictions reads it either way.
type PodDifference struct {
	Pod         string     `json:"pod"`
	Actual      []Eviction `json:"actual"`
	WhatIf      []Eviction `json:"whatIf"`
	ActualCount int        `json:"actualCount"`
	WhatIfCount int        `json:"whatIfCount"`
	ActualLast  Eviction   `json:"actualLast,omitzero"`
	WhatIfLast  Eviction   `json:"whatIfLast,omitzero"`
	Causes      []Cause    `json:"causes"`
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

// decider picks a log's decisions record by record: the reconcilers'
// events, but for the statuses a reconciler records for one object in
// one burst (each less than statusBurst after the one before), of which
// only the last counts: a status counted while other reconcilers were
// still at work (a Deployment's while its ReplicaSet's pods were being
// created, placed and started, or while its pod was being evicted and
// replaced) depends on which of them the machine ran first and how
// fast. herd on the wall clock records such statuses milliseconds
// apart; the simulation, whose clock stands still while its reconcilers
// work, records them at one instant. The last is the one every later
// decision read. A status waits until its burst ends (a later status of
// its object, or the window's end): it holds one record per object, not
// the window.
type decider struct {
	// open is, per status type and stream, the newest status of a burst
	// not yet ended.
	open map[string]events.Record
}

func newDecider() *decider { return &decider{open: map[string]events.Record{}} }

// add reads rec and gives emit the decisions it ends: rec itself, or a
// status whose burst rec ends. The decisions of one type and stream come
// in the log's order.
func (d *decider) add(rec events.Record, emit func(events.Record)) {
	if !decided(rec) || rec.Type == startedType {
		return
	}
	if !strings.HasSuffix(rec.Type, "StatusRecorded") {
		emit(rec)
		return
	}
	k := rec.Type + "\x00" + rec.Stream
	if open, ok := d.open[k]; ok && rec.RecordedAt.Sub(open.RecordedAt) >= statusBurst {
		emit(open)
	}
	d.open[k] = rec
}

// end gives emit the statuses whose bursts the window's end ends, in the
// log's order.
func (d *decider) end(emit func(events.Record)) {
	left := slices.SortedFunc(maps.Values(d.open), func(a, b events.Record) int { return cmp.Compare(a.Position, b.Position) })
	clear(d.open)
	for _, rec := range left {
		emit(rec)
	}
}

// namer writes a pod a workload's reconciler named (its suffix drawn at
// random: the same pod in two runs has two names) as its owner's name
// and "*".
type namer struct {
	r *strings.Replacer
}

// generatedNames learns the names of the pods a workload's reconciler
// created in recs, and notes the workloads' streams.
type generatedNames struct {
	names map[string]string
	// workloads are the streams of the ReplicaSets and Deployments the
	// window speaks of.
	workloads map[string]bool
}

func newGeneratedNames() *generatedNames {
	return &generatedNames{names: map[string]string{}, workloads: map[string]bool{}}
}

func (g *generatedNames) add(r events.Record) {
	if strings.HasPrefix(r.Stream, "replicaset/") || strings.HasPrefix(r.Stream, "deployment/") {
		g.workloads[r.Stream] = true
	}
	if r.Type != (domain.PodCreated{}).EventType() || !decided(r) {
		return
	}
	key, ok := domain.PodAggregate.Key(r.Stream)
	if !ok {
		return
	}
	if owner := generatedOwner(key); owner != "" {
		_, name, _ := strings.Cut(key, "/")
		_, canon, _ := strings.Cut(owner, "/")
		g.names[name] = canon
	}
}

// namer is the names learnt, to write them canonically.
func (g *generatedNames) namer() *namer {
	if len(g.names) == 0 {
		return nil
	}
	var pairs []string
	for _, n := range slices.Sorted(maps.Keys(g.names)) {
		pairs = append(pairs, n, g.names[n])
	}
	return &namer{r: strings.NewReplacer(pairs...)}
}

// canonical writes s with the generated names replaced.
func canonical(s string, names *namer) string {
	if names == nil {
		return s
	}
	return names.r.Replace(s)
}

var (
	uidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// addressPattern is a pod's IPv4 address (not a pool's CIDR): which
	// free address of a pool a pod gets depends on whether another pod's
	// address was released a moment before, at the same instant, which
	// the machine decides, in herd as in the simulation.
	addressPattern = regexp.MustCompile(`"(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})"`)
)

// effect is a payload without what differs between two runs of the same
// decision: times, UIDs, resourceVersions, pods' addresses.
func effect(payload []byte, names *namer) string {
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
func decisionOf(rec events.Record, names *namer) Decision {
	return Decision{Type: rec.Type, Stream: canonical(rec.Stream, names), Effect: effect(rec.Payload, names), Actor: rec.Metadata.Actor, At: rec.RecordedAt}
}

func (d Decision) key() string { return d.Type + "\x00" + d.Stream + "\x00" + d.Effect }

// digest is a decision's key, hashed: the comparison holds one per
// decision of the real window, not the decision.
type digest [16]byte

func (d Decision) digest() digest {
	sum := sha256.Sum256([]byte(d.key()))
	return digest(sum[:16])
}

// before orders decisions by time, then by key.
func before(a, b Decision) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	return strings.Compare(a.key(), b.key())
}

// firstDecisions keeps the first limit decisions by time of those it is
// given, each with the ID of its cause.
type firstDecisions struct {
	limit int
	list  []Decision
	cause []string
}

func (f *firstDecisions) add(d Decision, cause string) {
	n := len(f.list)
	if n == f.limit && (n == 0 || before(d, f.list[n-1]) >= 0) {
		return
	}
	i, _ := slices.BinarySearchFunc(f.list, d, before)
	f.list = slices.Insert(f.list, i, d)
	f.cause = slices.Insert(f.cause, i, cause)
	if len(f.list) > f.limit {
		f.list, f.cause = f.list[:f.limit], f.cause[:f.limit]
	}
}

// span is a window of a log: the records after position After, up to
// position UpTo.
type span struct {
	log         events.LogReader
	after, upTo int64
}

// placedBefore is the node a pod (by its stream) was last placed on
// before the span, read from the log: the node a pod evicted in the span
// was on, when it was placed before it.
func (s span) placedBefore(ctx context.Context) func(stream string) (string, error) {
	return func(stream string) (string, error) {
		recs, err := s.log.Query(ctx, events.Filter{Stream: stream, Types: []string{(domain.PodScheduled{}).EventType()}, Before: s.after + 1, Limit: 1, Newest: true})
		if err != nil || len(recs) == 0 {
			return "", err
		}
		ev, err := decodeEvent(recs[0])
		if err != nil {
			return "", err
		}
		return ev.(domain.PodScheduled).NodeName, nil
	}
}

// each gives fn the span's records in order, read a page at a time.
func (s span) each(ctx context.Context, fn func(events.Record)) error {
	for from := s.after; from < s.upTo; {
		recs, err := s.log.ReadAfter(ctx, from, seedBatch)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.Position > s.upTo {
				return nil
			}
			fn(r)
		}
		if len(recs) < seedBatch {
			return nil
		}
		from = recs[len(recs)-1].Position
	}
	return nil
}

// decisions gives fn the span's decisions (decider), each with its
// record, names being the span's generated names.
func (s span) decisions(ctx context.Context, names *namer, also func(events.Record), fn func(events.Record, Decision)) error {
	d := newDecider()
	emit := func(rec events.Record) { fn(rec, decisionOf(rec, names)) }
	err := s.each(ctx, func(rec events.Record) {
		if also != nil {
			also(rec)
		}
		d.add(rec, emit)
	})
	if err != nil {
		return err
	}
	d.end(emit)
	return nil
}

// tally counts, per key, the real window's decisions, those of them the
// simulation did not make, and (listing them) those seen.
type tally struct{ total, left, seen int32 }

// compare holds the real window's decisions against the simulation's,
// reading each window a page at a time: it counts every decision only
// one of them made and keeps, of each kind, the first limit by time with
// their causes.
func (r *Report) compare(ctx context.Context, real, simulated span, simLog *causeLog, limit int) (realNames, simNames *generatedNames, err error) {
	realNames, simNames = newGeneratedNames(), newGeneratedNames()
	if err := real.each(ctx, realNames.add); err != nil {
		return nil, nil, err
	}
	if err := simulated.each(ctx, simNames.add); err != nil {
		return nil, nil, err
	}
	realNamer, simNamer := realNames.namer(), simNames.namer()

	tallies := map[digest]*tally{}
	actual := newOutcomeFold(realNamer)
	actual.placedBefore = real.placedBefore(ctx)
	err = real.decisions(ctx, realNamer, actual.add, func(_ events.Record, d Decision) {
		k := d.digest()
		t := tallies[k]
		if t == nil {
			t = &tally{}
			tallies[k] = t
		}
		t.total++
		t.left++
	})
	if err == nil {
		err = actual.err
	}
	if err != nil {
		return nil, nil, err
	}
	r.Actual = actual.outcome()

	extra := firstDecisions{limit: limit}
	whatIf := newOutcomeFold(simNamer)
	whatIf.placedBefore = simulated.placedBefore(ctx)
	whatIf.watch()
	err = simulated.decisions(ctx, simNamer, whatIf.add, func(rec events.Record, d Decision) {
		if t := tallies[d.digest()]; t != nil && t.left > 0 {
			t.left--
			r.Same++
			return
		}
		r.ExtraCount++
		extra.add(d, rec.Metadata.CausationID)
	})
	if err == nil {
		err = whatIf.err
	}
	if err != nil {
		return nil, nil, err
	}
	r.WhatIf = whatIf.outcome()

	// The real decisions the simulation did not make are, of each key,
	// the last ones: the simulation's matched the first.
	missing := firstDecisions{limit: limit}
	for _, t := range tallies {
		r.MissingCount += int(t.left)
	}
	if r.MissingCount > 0 {
		err = real.decisions(ctx, realNamer, nil, func(_ events.Record, d Decision) {
			t := tallies[d.digest()]
			t.seen++
			if t.seen > t.total-t.left {
				missing.add(d, "")
			}
		})
		if err != nil {
			return nil, nil, err
		}
	}
	r.Missing = missing.list
	r.Extra = extra.list
	for i := range r.Extra {
		r.Extra[i].Causes = causesFrom(ctx, simLog, extra.cause[i], simNamer)
	}
	r.Limit = limit
	r.Truncated = len(r.Missing) < r.MissingCount || len(r.Extra) < r.ExtraCount
	r.differences(ctx, whatIf, simNamer, simLog)
	return realNames, simNames, nil
}

// causeLog is the simulated log as the report follows causes in it: each
// cause read by its ID, once (and an ID the log does not hold asked
// once).
type causeLog struct {
	events.LogReader
	read map[string]events.Record
}

// newCauseLog is log, read for causes.
func newCauseLog(log events.LogReader) *causeLog {
	return &causeLog{LogReader: log, read: map[string]events.Record{}}
}

// record is the record whose ID is id; false when the log holds none (or
// cannot be read: the chain of causes ends there).
func (l *causeLog) record(ctx context.Context, id string) (events.Record, bool) {
	if rec, ok := l.read[id]; ok {
		return rec, rec.ID != ""
	}
	recs, err := l.Query(ctx, events.Filter{ID: id, Limit: 1})
	if err != nil || len(recs) == 0 {
		if err == nil {
			l.read[id] = events.Record{} // the log holds none: not asked again
		}
		return events.Record{}, false
	}
	rec := recs[0]
	rec.Payload = nil // a cause is told by its type, stream, actor and time
	l.read[id] = rec
	return rec, true
}

// maxCauses bounds a chain of causes.
const maxCauses = 8

// causes follows rec's causes back in log, nearest first.
func causes(ctx context.Context, log *causeLog, rec events.Record, names *namer) []Cause {
	return causesFrom(ctx, log, rec.Metadata.CausationID, names)
}

// causesFrom follows the chain of causes from the record whose ID is id.
func causesFrom(ctx context.Context, log *causeLog, id string, names *namer) []Cause {
	var out []Cause
	for _, c := range causeRecords(ctx, log, id) {
		out = append(out, causeOf(c, names))
	}
	return out
}

// causeRecords are the records of the chain of causes from id.
func causeRecords(ctx context.Context, log *causeLog, id string) []events.Record {
	var out []events.Record
	for id != "" && len(out) < maxCauses {
		c, ok := log.record(ctx, id)
		if !ok {
			break
		}
		out = append(out, c)
		id = c.Metadata.CausationID
	}
	return out
}

func causeOf(rec events.Record, names *namer) Cause {
	return Cause{Type: rec.Type, Stream: canonical(rec.Stream, names), Actor: rec.Metadata.Actor, At: rec.RecordedAt}
}

func readyUnknown(c domain.NodeConditionChanged) bool {
	return c.Type == domain.ConditionReady && c.Status == domain.ConditionUnknown
}

// evictors are the reconcilers whose deletion of a pod is an eviction.
var evictors = []string{"system:herd:noexecute", "system:herd:drain"}

// outcomeFold reads what the reconcilers did, record by record; watching,
// it also notes the records the differences' causes start from.
type outcomeFold struct {
	o      Outcome
	names  *namer
	onNode map[string]string
	// placedBefore, when set, gives the node of a pod placed before the
	// fold's records; err is the first error it returned.
	placedBefore func(stream string) (string, error)
	err          error

	watching bool
	// marked is, per node stream, the first health decision on it;
	// deleted, per pod, the first deletion a reconciler asked.
	marked, deleted map[string]events.Record
	// evictions are, per pod, its evictions in the order they were
	// made, each with its record: a pod whose name outlives it (a
	// StatefulSet's) may have been deleted before for another reason.
	evictions map[string][]evicted
	// scheduled is, per pod, each placement a reconciler made, in order.
	scheduled map[string][]placement
	// created is, per pod a reconciler created (by its record's ID), the
	// eviction its creation may have replaced; evicted is, per pod
	// stream written canonically, its newest eviction and the newest of
	// another pod.
	created map[string]creation
	evicted map[string][2]events.Record
}

// evicted is one eviction of a pod and the record that asked it.
type evicted struct {
	Eviction
	rec events.Record
}

type placement struct {
	node string
	rec  events.Record
}

type creation struct {
	spec     string
	eviction events.Record
}

func newOutcomeFold(names *namer) *outcomeFold {
	return &outcomeFold{
		o:     Outcome{NotReady: map[string][]time.Time{}, Evicted: map[string][]Eviction{}, Placed: map[string][]string{}},
		names: names, onNode: map[string]string{},
	}
}

// watch has the fold note the records the differences' causes start
// from.
func (f *outcomeFold) watch() {
	f.watching = true
	f.marked, f.deleted = map[string]events.Record{}, map[string]events.Record{}
	f.evictions = map[string][]evicted{}
	f.scheduled = map[string][]placement{}
	f.created, f.evicted = map[string]creation{}, map[string][2]events.Record{}
}

// slim is rec without its payload: what a chain of causes needs.
func slim(rec events.Record) events.Record {
	rec.Payload = nil
	return rec
}

func (f *outcomeFold) add(rec events.Record) {
	if rec.Type == (domain.PodScheduled{}).EventType() {
		if ev, err := decodeEvent(rec); err == nil {
			f.onNode[rec.Stream] = ev.(domain.PodScheduled).NodeName
		}
	}
	if !decided(rec) {
		return
	}
	if _, known := f.onNode[rec.Stream]; !known && f.placedBefore != nil && f.err == nil &&
		rec.Type == (domain.PodDeletionRequested{}).EventType() && slices.Contains(evictors, rec.Metadata.Actor) {
		f.onNode[rec.Stream], f.err = f.placedBefore(rec.Stream)
	}
	if f.watching {
		f.note(rec)
	}
	o := &f.o
	if conditionChanges.Match(rec) {
		ev, err := decodeEvent(rec)
		if err == nil && domain.Holds(ev, readyUnknown) {
			name, _ := domain.NodeAggregate.Key(rec.Stream)
			o.NotReady[name] = append(o.NotReady[name], rec.RecordedAt)
		}
		return
	}
	switch rec.Type {
	case domain.PodDeletionRequested{}.EventType():
		if slices.Contains(evictors, rec.Metadata.Actor) {
			key, _ := domain.PodAggregate.Key(rec.Stream)
			key = canonical(key, f.names)
			o.Evicted[key] = append(o.Evicted[key], Eviction{Node: f.onNode[rec.Stream], At: rec.RecordedAt, By: rec.Metadata.Actor})
		}
	case domain.PodScheduled{}.EventType():
		key, _ := domain.PodAggregate.Key(rec.Stream)
		key = canonical(key, f.names)
		o.Placed[key] = append(o.Placed[key], f.onNode[rec.Stream])
	}
}

// note keeps what differences needs of a decision.
func (f *outcomeFold) note(rec events.Record) {
	if conditionChanges.Match(rec) {
		if _, ok := f.marked[rec.Stream]; !ok {
			f.marked[rec.Stream] = slim(rec)
		}
		return
	}
	key, ok := domain.PodAggregate.Key(rec.Stream)
	if !ok {
		return
	}
	key = canonical(key, f.names)
	switch rec.Type {
	case domain.PodDeletionRequested{}.EventType():
		if _, ok := f.deleted[key]; !ok {
			f.deleted[key] = slim(rec)
		}
		if slices.Contains(evictors, rec.Metadata.Actor) {
			f.evictions[key] = append(f.evictions[key], evicted{Eviction{Node: f.onNode[rec.Stream], At: rec.RecordedAt, By: rec.Metadata.Actor}, slim(rec)})
			stream := canonical(rec.Stream, f.names)
			last := f.evicted[stream]
			if last[0].Stream != rec.Stream {
				last[1] = last[0]
			}
			last[0] = slim(rec)
			f.evicted[stream] = last
		}
	case domain.PodScheduled{}.EventType():
		f.scheduled[key] = append(f.scheduled[key], placement{node: f.onNode[rec.Stream], rec: slim(rec)})
	case domain.PodCreated{}.EventType():
		c := creation{spec: rec.Metadata.CausationID}
		last := f.evicted[canonical(rec.Stream, f.names)]
		for _, ev := range last {
			if ev.ID != "" && ev.Stream != rec.Stream {
				c.eviction = ev
				break
			}
		}
		f.created[rec.ID] = c
	}
}

// outcome is what the fold read.
func (f *outcomeFold) outcome() Outcome {
	for _, nodes := range f.o.Placed {
		slices.Sort(nodes)
	}
	return f.o
}

// nearTolerance is how far apart two times of one outcome may be and
// still count as the same: the health rules' passes in the simulation
// need not fall on the real ones' instants.
func (r *Report) nearTolerance() time.Duration { return 6 * time.Second }

// differences lists the outcomes that differ, each simulated one with
// the causes the simulated log gives it.
func (r *Report) differences(ctx context.Context, sim *outcomeFold, names *namer, simLog *causeLog) {
	tol := r.nearTolerance()
	near := func(a, b time.Time) bool { d := a.Sub(b); return d <= tol && d >= -tol }
	chain := func(rec events.Record, ok bool) []Cause {
		if !ok {
			return nil
		}
		return append([]Cause{causeOf(rec, names)}, causes(ctx, simLog, rec, names)...)
	}
	for _, n := range unionKeys(r.Actual.NotReady, r.WhatIf.NotReady) {
		a, w := r.Actual.NotReady[n], r.WhatIf.NotReady[n]
		same := len(a) == len(w)
		for i := 0; same && i < len(a); i++ {
			same = near(a[i], w[i])
		}
		if !same {
			rec, ok := sim.marked[domain.NodeStream(n)]
			r.Nodes = append(r.Nodes, NodeDifference{Node: n, Actual: a, WhatIf: w, Causes: chain(rec, ok),
				ActualCount: len(a), WhatIfCount: len(w), ActualLast: lastOf(a), WhatIfLast: lastOf(w)})
		}
	}
	for _, p := range unionKeys(r.Actual.Evicted, r.WhatIf.Evicted) {
		a, w := r.Actual.Evicted[p], r.WhatIf.Evicted[p]
		if !sameEvictions(a, w, near) {
			// The chain starts from the what-if's first eviction that
			// herd did not make, or, where there is none (herd evicted
			// more), from the first deletion the what-if asked.
			rec, ok := firstUnmatched(sim.evictions[p], a, near)
			if !ok {
				rec, ok = sim.deleted[p]
			}
			r.Pods = append(r.Pods, PodDifference{Pod: p, Actual: a, WhatIf: w, Causes: chain(rec, ok),
				ActualCount: len(a), WhatIfCount: len(w), ActualLast: lastOf(a), WhatIfLast: lastOf(w)})
		}
	}
	for _, p := range unionKeys(r.Actual.Placed, r.WhatIf.Placed) {
		a, w := r.Actual.Placed[p], r.WhatIf.Placed[p]
		if slices.Equal(a, w) {
			continue
		}
		// The placement that differs is the first of the what-if's on a
		// node beyond those herd placed there: its causes say why the
		// pod moved (a pod made anew for one a drain evicted), not why
		// it was first placed.
		left := map[string]int{}
		for _, n := range a {
			left[n]++
		}
		placements := sim.scheduled[p]
		var causes []Cause
		for _, pl := range placements {
			if left[pl.node] > 0 {
				left[pl.node]--
				continue
			}
			causes = r.replacing(ctx, sim, simLog, names, pl.rec)
			break
		}
		if causes == nil && len(placements) > 0 {
			causes = r.replacing(ctx, sim, simLog, names, placements[0].rec)
		}
		r.Placements = append(r.Placements, PlacementDifference{Pod: p, Actual: a, WhatIf: w, Causes: causes})
	}
}

// sameEvictions reports whether two runs' evictions of one pod are the
// same: each from the same node by the same reconciler at a near time.
// A workload's pods are one pod here ("owner-*"), and its evictions in
// one pass need not come in the same order in both runs (herd evicts a
// pass's pods concurrently), so they are matched node by node, in time
// order, not by their place in the lists.
func sameEvictions(a, w []Eviction, near func(a, b time.Time) bool) bool {
	if len(a) != len(w) {
		return false
	}
	order := func(x, y Eviction) int {
		if c := cmp.Compare(x.Node, y.Node); c != 0 {
			return c
		}
		if c := cmp.Compare(x.By, y.By); c != 0 {
			return c
		}
		return x.At.Compare(y.At)
	}
	a, w = slices.SortedFunc(slices.Values(a), order), slices.SortedFunc(slices.Values(w), order)
	for i := range a {
		if a[i].Node != w[i].Node || a[i].By != w[i].By || !near(a[i].At, w[i].At) {
			return false
		}
	}
	return true
}

// firstUnmatched is the record of the first of the what-if's evictions
// of a pod (in the order made) that none of herd's matches: from the same
// node, by the same reconciler, at a near time, each of herd's matching
// one at most.
func firstUnmatched(whatIf []evicted, actual []Eviction, near func(a, b time.Time) bool) (events.Record, bool) {
	used := make([]bool, len(actual))
	for _, e := range whatIf {
		matched := false
		for i, a := range actual {
			if !used[i] && a.Node == e.Node && a.By == e.By && near(a.At, e.At) {
				used[i], matched = true, true
				break
			}
		}
		if !matched {
			return e.rec, true
		}
	}
	return events.Record{}, false
}

// replacing is the chain of causes of placement, in which a pod a
// workload made anew for one of its pods that was evicted goes back to
// that eviction, and on to its own causes (the drain, the taint): the
// workload's reconciler records its spec as the cause of every pod it
// creates (`herd why` follows that), but a pod made to replace an
// evicted one moved because of the eviction. The eviction is the newest
// of the owner's pods (canonically the same name) before the pod's
// creation, when it is newer than the cause the creation records.
func (r *Report) replacing(ctx context.Context, sim *outcomeFold, simLog *causeLog, names *namer, placement events.Record) []Cause {
	recs := causeRecords(ctx, simLog, placement.Metadata.CausationID)
	chain := []Cause{causeOf(placement, names)}
	for _, c := range recs {
		chain = append(chain, causeOf(c, names))
	}
	if len(recs) == 0 || recs[0].Type != (domain.PodCreated{}).EventType() {
		return chain
	}
	c, ok := sim.created[recs[0].ID]
	if !ok || c.eviction.ID == "" {
		return chain
	}
	if spec, ok := simLog.record(ctx, c.spec); ok && spec.Position > c.eviction.Position {
		return chain // the owner's own change is newer than any eviction
	}
	return append(append(slices.Clone(chain[:2]), causeOf(c.eviction, names)), causes(ctx, simLog, c.eviction, names)...)
}

// availability holds how long each workload spent below its desired
// availability in the real window (read from source up to the window's
// end) against the simulation's (read from simLog).
func (r *Report) availability(ctx context.Context, source events.LogReader, simLog *causeLog, real, simulated *generatedNames) error {
	var err error
	if r.Actual.Below, _, err = below(ctx, source, real.workloads, r.Since, r.Until, r.To); err != nil {
		return err
	}
	var first map[string]events.Record
	if r.WhatIf.Below, first, err = below(ctx, simLog, simulated.workloads, r.Since, r.Until, 0); err != nil {
		return err
	}
	simNames := simulated.namer()
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
