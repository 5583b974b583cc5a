package httpapi

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestAuditEventsByIDAndActor(t *testing.T) {
	_, base := newAuthAPI(t)
	mustSend(t, nil, base, 201, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: nodeJSON("pico-01")})
	list := func(t *testing.T, query string) AuditEventList {
		t.Helper()
		var l AuditEventList
		if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/apis/herd.dev/v1/auditevents?" + query, token: "viewer-token"}).body, &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	all := list(t, "")
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
			got := list(t, tc.query)
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
	list := func(t *testing.T, query string) AuditEventList {
		t.Helper()
		var l AuditEventList
		if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/apis/herd.dev/v1/auditevents?" + query, token: "viewer-token"}).body, &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	const heartbeat = "HeartbeatRecorded"
	var others, beats []AuditEvent
	for _, e := range list(t, "").Items {
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
			got := list(t, tc.query)
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
