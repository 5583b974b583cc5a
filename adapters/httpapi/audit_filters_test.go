package httpapi

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestAuditEventsByIDAndActor(t *testing.T) {
	_, base := newAuthAPI(t)
	mustSend(t, nil, base, 201, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: nodeJSON("pico-01")})
	all := auditList(t, base, "")
	var pico []AuditEvent
	for _, e := range all.Items {
		if e.Actor == "system:node:pico-01" {
			pico = append(pico, e)
		}
	}
	if len(pico) == 0 {
		t.Fatalf("no event of pico-01 in %+v", all.Items)
	}
	one := all.Items[len(all.Items)/2]

	for _, tc := range []struct {
		name, query  string
		want         []AuditEvent
		wantContinue bool
	}{
		{name: "the events of an actor", query: "actor=" + url.QueryEscape("system:node:pico-01"), want: pico},
		{name: "an actor and a type", query: "actor=system%3Anode%3Apico-01&type=NodeRegistered", want: pico[:1]},
		{name: "an actor and a limit pages on", query: "actor=system%3Anode%3Apico-01&limit=1", want: pico[:1], wantContinue: len(pico) > 1},
		{name: "an actor herd never saw", query: "actor=nobody"},
		{name: "the one event of an id", query: "id=" + one.ID, want: []AuditEvent{one}},
		{name: "an id and a limit of one: no next page", query: "id=" + one.ID + "&limit=1", want: []AuditEvent{one}},
		{name: "an id that is no event's (a request's)", query: "id=req-1"},
		{name: "the newest before a position: the page before, paging back", query: "tail=2&before=" + strconv.FormatInt(one.Position, 10),
			want: all.Items[len(all.Items)/2-2 : len(all.Items)/2]},
		{name: "the events before a position, oldest first", query: "limit=1&before=" + strconv.FormatInt(one.Position, 10),
			want: all.Items[:1], wantContinue: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := auditList(t, base, tc.query)
			if diff := cmp.Diff(tc.want, got.Items, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if (got.Metadata.Continue != "") != tc.wantContinue {
				t.Errorf("continue %q, want one: %v", got.Metadata.Continue, tc.wantContinue)
			}
		})
	}
}

// TestAuditEventsExcludingTypes: ?excludeType= leaves heartbeats out in
// the query itself, so a page of the newest events is a full page of
// other events however many heartbeats came after them; a type that is
// no event type is refused, naming the parameter.
func TestAuditEventsExcludingTypes(t *testing.T) {
	_, base := newAuthAPI(t)
	mustSend(t, nil, base, 201, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: nodeJSON("pico-01")})
	mustSend(t, nil, base, 200, req{method: "PATCH", path: "/api/v1/nodes/pico-01", token: "admin-token", contentType: strategicPatch,
		body: `{"metadata":{"labels":{"rack":"r1"}}}`})
	mustSend(t, nil, base, 200, req{method: "PATCH", path: "/api/v1/nodes/pico-01", token: "admin-token", contentType: strategicPatch,
		body: `{"spec":{"unschedulable":true}}`})
	for range 5 {
		mustSend(t, nil, base, 200, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", token: "pico1-token", contentType: strategicPatch, body: readyPatch})
	}
	const heartbeat = "HeartbeatRecorded"
	var others, beats []AuditEvent
	for _, e := range auditList(t, base, "").Items {
		if e.Type == heartbeat {
			beats = append(beats, e)
		} else {
			others = append(others, e)
		}
	}
	if len(beats) < 5 || len(others) < 3 {
		t.Fatalf("the log holds %d heartbeats and %d other events, want at least 5 and 3", len(beats), len(others))
	}
	for _, tc := range []struct {
		name, query string
		want        []AuditEvent
	}{
		{name: "all but heartbeats", query: "excludeType=" + heartbeat, want: others},
		{name: "the newest two that are no heartbeat, behind five heartbeats", query: "tail=2&excludeType=" + heartbeat, want: others[len(others)-2:]},
		{name: "a first page of two without heartbeats", query: "limit=2&excludeType=" + heartbeat, want: others[:2]},
		{name: "two types excluded", query: "excludeType=" + heartbeat + ",LeaseRenewed", want: others},
		{name: "a type asked for and excluded: none", query: "type=" + heartbeat + "&excludeType=" + heartbeat},
		{name: "types asked for, one excluded", query: "type=" + heartbeat + "," + others[0].Type + "&excludeType=" + heartbeat,
			want: slicesOfType(others, others[0].Type)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := auditList(t, base, tc.query)
			if diff := cmp.Diff(tc.want, got.Items, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
	a := mustSend(t, nil, base, 400, req{method: "GET", path: "/apis/herd.dev/v1/auditevents?excludeType=Heartbeat", token: "viewer-token"})
	if !strings.Contains(string(a.body), `excludeType \"Heartbeat\" is not an event type`) {
		t.Errorf("an unknown excluded type: %s, want it named", a.body)
	}
}

func slicesOfType(es []AuditEvent, typ string) []AuditEvent {
	var out []AuditEvent
	for _, e := range es {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// TestAuditEventsOfATypeInsideOthers: a report that changes two of a
// node's conditions, or a condition and Ready's turn, is one
// NodeStatusChanged, and ?type=NodeConditionChanged or
// ?type=NodeBecameReady lists it when it holds one such change, and not
// when it does not; pages stay full, going forward and back, past the
// events that hold none.
func TestAuditEventsOfATypeInsideOthers(t *testing.T) {
	_, base := newAuthAPI(t)
	mustSend(t, nil, base, 201, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: nodeJSON("pico-01")})
	status := func(conditions string) {
		t.Helper()
		mustSend(t, nil, base, 200, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", token: "pico1-token", contentType: strategicPatch,
			body: `{"status":{"conditions":[` + conditions + `]}}`})
	}
	cond := func(typ, status string) string {
		return `{"type":"` + typ + `","status":"` + status + `","reason":"R` + status + `","lastHeartbeatTime":"1970-01-01T00:00:00Z"}`
	}
	status(cond("Ready", "True") + "," + cond("MemoryPressure", "True") + "," + cond("DiskPressure", "True"))   // two new conditions
	status(cond("Ready", "True") + "," + cond("MemoryPressure", "False") + "," + cond("DiskPressure", "True"))  // one, alone
	status(cond("Ready", "False") + "," + cond("MemoryPressure", "False") + "," + cond("DiskPressure", "True")) // Ready leaves True
	status(cond("Ready", "True") + "," + cond("MemoryPressure", "False") + "," + cond("DiskPressure", "True"))  // and comes back
	status(cond("Ready", "True") + "," + cond("MemoryPressure", "True") + "," + cond("DiskPressure", "False"))  // two pressures, no turn

	// What each event says, read from its payload here rather than by
	// herd's own decoding.
	var changes, readies, notReadies, statusChanged []AuditEvent
	for _, e := range auditList(t, base, "").Items {
		var p struct {
			Conditions  []json.RawMessage `json:"conditions"`
			BecameReady bool              `json:"becameReady"`
			NotReady    string            `json:"notReady"`
		}
		if e.Type == "NodeStatusChanged" {
			statusChanged = append(statusChanged, e)
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				t.Fatal(err)
			}
		}
		if e.Type == "NodeConditionChanged" || len(p.Conditions) > 0 {
			changes = append(changes, e)
		}
		if e.Type == "NodeBecameReady" || p.BecameReady {
			readies = append(readies, e)
		}
		if e.Type == "NodeBecameNotReady" || p.NotReady != "" {
			notReadies = append(notReadies, e)
		}
	}
	if len(statusChanged) < 3 || len(changes) <= len(statusChanged) || len(readies) < 2 || len(notReadies) != 1 {
		t.Fatalf("the log holds %d NodeStatusChanged, %d condition changes, %d turns to Ready and %d away: want at least 3, more than those, 2 and 1",
			len(statusChanged), len(changes), len(readies), len(notReadies))
	}
	if last := statusChanged[len(statusChanged)-1]; slices.ContainsFunc(readies, func(e AuditEvent) bool { return e.ID == last.ID }) {
		t.Fatalf("the newest NodeStatusChanged (%s) turns Ready: want one that does not, to page past", last.Payload)
	}
	for _, tc := range []struct {
		name, query string
		want        []AuditEvent
	}{
		{name: "every condition change", query: "type=NodeConditionChanged", want: changes},
		{name: "every turn to Ready, and no report that only changed pressures", query: "type=NodeBecameReady", want: readies},
		{name: "the turn away from Ready", query: "type=NodeBecameNotReady", want: notReadies},
		{name: "the newest turn to Ready, behind a report that changed pressures", query: "type=NodeBecameReady&tail=1", want: readies[len(readies)-1:]},
		{name: "the newest two", query: "type=NodeBecameReady&tail=2", want: readies[len(readies)-2:]},
		{name: "the carrier asked for too: every one", query: "type=NodeBecameReady,NodeStatusChanged", want: union(readies, statusChanged)},
		{name: "the carrier excluded: the changes recorded alone", query: "type=NodeConditionChanged&excludeType=NodeStatusChanged",
			want: slicesOfType(changes, "NodeConditionChanged")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := auditList(t, base, tc.query)
			if diff := cmp.Diff(tc.want, got.Items, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("paged one at a time", func(t *testing.T) {
		var got []AuditEvent
		for query := "type=NodeBecameReady&limit=1"; ; {
			page := auditList(t, base, query)
			if len(page.Items) != 1 && page.Metadata.Continue != "" {
				t.Fatalf("a page of %d with a next page (%s): want full pages", len(page.Items), query)
			}
			got = append(got, page.Items...)
			if page.Metadata.Continue == "" || len(got) > len(readies) {
				break
			}
			query = "type=NodeBecameReady&limit=1&continue=" + page.Metadata.Continue
		}
		if diff := cmp.Diff(readies, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
	})
}

// union is the events of a and b, in position order, each once.
func union(a, b []AuditEvent) []AuditEvent {
	out := slices.Concat(a, b)
	slices.SortFunc(out, func(x, y AuditEvent) int { return int(x.Position - y.Position) })
	return slices.CompactFunc(out, func(x, y AuditEvent) bool { return x.Position == y.Position })
}

// auditList is the audit log's page for query, read by a viewer.
func auditList(t *testing.T, base, query string) AuditEventList {
	t.Helper()
	var l AuditEventList
	if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/apis/herd.dev/v1/auditevents?" + query, token: "viewer-token"}).body, &l); err != nil {
		t.Fatal(err)
	}
	return l
}
