package features

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"herd/adapters/httpapi"
	"herd/domain"
	"herd/events"
)

// heartbeatType is the type of a heartbeat in the log.
var heartbeatType = domain.HeartbeatRecorded{}.EventType()

func (w *world) registerRetentionSteps(sc *godog.ScenarioContext) {
	sc.Step(`^herd keeps heartbeats for (\d+) minutes, and one per node every (\d+) minutes beyond$`, w.keepsHeartbeatsThinned)
	sc.Step(`^herd keeps every heartbeat$`, w.keepsEveryHeartbeat)
	sc.Step(`^herd's heartbeat retention runs$`, w.retentionRuns)
	sc.Step(`^the log keeps every heartbeat of "([^"]+)" recorded since (\S+)$`, w.keepsEveryHeartbeatSince)
	sc.Step(`^of the heartbeats of "([^"]+)" recorded before (\S+), the log keeps only the newest$`, w.keepsOnlyNewestBefore)
	sc.Step(`^of the heartbeats of "([^"]+)" recorded before (\S+), the log keeps the first of every (\d+) minutes and the newest$`, w.keepsThinnedBefore)
	sc.Step(`^the log keeps the one heartbeat of "([^"]+)", which went silent at (\S+)$`, w.keepsSilentHeartbeat)
	sc.Step(`^the log keeps every event that is not a heartbeat$`, w.keepsEveryOtherEvent)
	sc.Step(`^the audit log says that history before (\S+) is thinned$`, w.auditSaysThinned)
	sc.Step(`^listing the nodes at the resourceVersion of that list shows "([^"]+)" as it was, warning that its heartbeats were thinned$`, w.listAtListRVThinned)
}

func (w *world) keepsHeartbeatsThinned(retention, every int) error {
	w.cfg.Compaction.Retention = time.Duration(retention) * time.Minute
	w.cfg.Compaction.KeepEvery = time.Duration(every) * time.Minute
	return w.restart(context.Background())
}

func (w *world) keepsEveryHeartbeat() error {
	w.cfg.Compaction.Retention = 0
	return w.restart(context.Background())
}

// retentionRuns runs a round of the retention policy now, as herd's timer
// does every --heartbeat-compaction-interval, and remembers the log as
// it stood just before.
func (w *world) retentionRuns() error {
	before, err := w.wholeLog()
	if err != nil {
		return err
	}
	w.beforeRetention = before
	_, err = w.compactor.Compact(context.Background())
	return err
}

// wholeLog reads every event the log holds, in order.
func (w *world) wholeLog() ([]events.Record, error) {
	ctx := context.Background()
	return w.log.ReadAfter(ctx, 0, 0)
}

// heartbeatsOf are the recorded times of node's heartbeats in recs.
func heartbeatsOf(recs []events.Record, node string) []time.Time {
	var out []time.Time
	for _, r := range recs {
		if r.Stream == domain.NodeStream(node) && r.Type == heartbeatType {
			out = append(out, r.RecordedAt)
		}
	}
	return out
}

// heartbeatsKeptAndHad are node's heartbeats that the log holds now and
// held before the retention ran, split at cut: those before it.
func (w *world) heartbeatsKeptAndHad(node, cut string) (kept, had []time.Time, at time.Time, err error) {
	if at, err = w.at(cut); err != nil {
		return nil, nil, at, err
	}
	now, err := w.wholeLog()
	if err != nil {
		return nil, nil, at, err
	}
	before := func(ts []time.Time) []time.Time {
		var out []time.Time
		for _, t := range ts {
			if t.Before(at) {
				out = append(out, t)
			}
		}
		return out
	}
	return before(heartbeatsOf(now, node)), before(heartbeatsOf(w.beforeRetention, node)), at, nil
}

func (w *world) keepsEveryHeartbeatSince(node, since string) error {
	from, err := w.at(since)
	if err != nil {
		return err
	}
	now, err := w.wholeLog()
	if err != nil {
		return err
	}
	kept := map[time.Time]bool{}
	for _, t := range heartbeatsOf(now, node) {
		kept[t] = true
	}
	n := 0
	for _, t := range heartbeatsOf(w.beforeRetention, node) {
		if !t.Before(from) {
			n++
			if !kept[t] {
				return fmt.Errorf("the heartbeat of %s recorded at %s was deleted", node, w.show(t))
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("%s sent no heartbeat since %s", node, since)
	}
	return nil
}

func (w *world) keepsOnlyNewestBefore(node, cut string) error {
	kept, had, _, err := w.heartbeatsKeptAndHad(node, cut)
	if err != nil {
		return err
	}
	if len(had) < 2 {
		return fmt.Errorf("%s had %d heartbeats before %s: nothing to thin", node, len(had), cut)
	}
	if len(kept) != 1 || !kept[0].Equal(had[len(had)-1]) {
		return fmt.Errorf("of %d heartbeats of %s before %s the log keeps %s, want only the newest, %s",
			len(had), node, cut, w.showTimes(kept), w.show(had[len(had)-1]))
	}
	return nil
}

func (w *world) keepsThinnedBefore(node, cut string, every int) error {
	kept, had, _, err := w.heartbeatsKeptAndHad(node, cut)
	if err != nil {
		return err
	}
	d := time.Duration(every) * time.Minute
	var want []time.Time
	for i, t := range had {
		if i == 0 || t.Truncate(d) != had[i-1].Truncate(d) || i == len(had)-1 {
			want = append(want, t)
		}
	}
	if w.showTimes(kept) != w.showTimes(want) {
		return fmt.Errorf("of %d heartbeats of %s before %s the log keeps %s, want %s", len(had), node, cut, w.showTimes(kept), w.showTimes(want))
	}
	return nil
}

func (w *world) keepsSilentHeartbeat(node, at string) error {
	t, err := w.at(at)
	if err != nil {
		return err
	}
	now, err := w.wholeLog()
	if err != nil {
		return err
	}
	if got := heartbeatsOf(now, node); len(got) != 1 || !got[0].Equal(t) {
		return fmt.Errorf("the log keeps heartbeats of %s at %s, want the one at %s", node, w.showTimes(got), at)
	}
	return nil
}

func (w *world) keepsEveryOtherEvent() error {
	now, err := w.wholeLog()
	if err != nil {
		return err
	}
	kept := map[int64]bool{}
	for _, r := range now {
		kept[r.Position] = true
	}
	for _, r := range w.beforeRetention {
		if r.Type != heartbeatType && !kept[r.Position] {
			return fmt.Errorf("%s %s@%d was deleted", r.Type, r.Stream, r.Version)
		}
	}
	return nil
}

func (w *world) auditSaysThinned(before string) error {
	t, err := w.at(before)
	if err != nil {
		return err
	}
	var list httpapi.AuditEventList
	if err := w.get("/apis/herd.dev/v1/auditevents?limit=1", &list); err != nil {
		return err
	}
	th := list.Thinned
	if th == nil || !th.Before.Equal(t) || th.DeletedHeartbeats == 0 || !strings.Contains(th.Message, "history before") {
		return fmt.Errorf("the audit log says %+v, want history before %s thinned", th, before)
	}
	// Reading only what came after the compaction point, nothing is thinned.
	var after httpapi.AuditEventList
	if err := w.get("/apis/herd.dev/v1/auditevents?after="+fmt.Sprint(th.ThroughPosition), &after); err != nil {
		return err
	}
	if after.Thinned != nil {
		return fmt.Errorf("after the compaction point %d the audit log still says %q", th.ThroughPosition, after.Thinned.Message)
	}
	return nil
}

// listAtListRVThinned lists the nodes exactly at the resourceVersion of
// the client's list, from before the compaction point: herd answers with
// the nodes as they were then and a Warning that the retention policy
// thinned their heartbeats.
func (w *world) listAtListRVThinned(node string) error {
	if w.watching.listRV == "" {
		return errors.New("no client has listed the nodes yet")
	}
	q := url.Values{"resourceVersion": {w.watching.listRV}, "resourceVersionMatch": {"Exact"}}
	r, err := w.do(http.MethodGet, nodesPath+"?"+q.Encode(), "", nil)
	if err != nil {
		return err
	}
	w.last = r
	if r.code != http.StatusOK || !strings.Contains(string(r.body), `"name":"`+node+`"`) {
		return fmt.Errorf("the list of the past: %s, want %s in it", r, node)
	}
	if !slices.ContainsFunc(r.warnings, func(s string) bool { return strings.Contains(s, "thinned heartbeats") }) {
		return fmt.Errorf("the list of the past warns %q, want that heartbeats were thinned", r.warnings)
	}
	return nil
}

func (w *world) showTimes(ts []time.Time) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = w.show(t)
	}
	return strings.Join(s, ", ")
}
