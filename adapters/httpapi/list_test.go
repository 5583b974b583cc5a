package httpapi

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
	"herd/projections"
	"herd/projections/watch"
)

func TestListAndWatchRefuseWhatKubernetesRefuses(t *testing.T) {
	a := newWatchAPI(t, watch.Config{WaitForPosition: 20 * time.Millisecond})
	a.do(t, "web-01", register("web-01", nil))
	valid := continueToken{V: continueVersion, RV: a.head(t), Start: "web-01"}.encode()
	tests := []struct {
		name   string
		query  string
		code   int
		reason metav1.StatusReason
		says   string
	}{
		{"a label selector that does not parse", "labelSelector=" + url.QueryEscape("zone in ("), 400, metav1.StatusReasonBadRequest, "unable to parse labelSelector"},
		{"a field selector that does not parse", "fieldSelector=" + url.QueryEscape("a=b=c"), 400, metav1.StatusReasonBadRequest, "unable to parse fieldSelector"},
		{"a field nodes cannot be selected by", "fieldSelector=spec.nodeName%3Dx", 400, metav1.StatusReasonBadRequest, "field label not supported: spec.nodeName"},
		{"a resourceVersion that is not a position", "resourceVersion=abc", 400, metav1.StatusReasonBadRequest, "resourceVersion must be a log position"},
		{"a negative limit", "limit=-1", 400, metav1.StatusReasonBadRequest, "limit must be a non-negative integer"},
		{"a continue token that is not one", "continue=garbage", 400, metav1.StatusReasonBadRequest, "continue key is not valid"},
		{"a continue token with a resourceVersion", "continue=" + valid + "&resourceVersion=3", 400, metav1.StatusReasonBadRequest, "specifying resource version is not allowed when using continue"},
		{"watch that is not a boolean", "watch=sometimes", 400, metav1.StatusReasonBadRequest, "watch must be true or false"},
		{"a timeout that is not a number", "watch=true&timeoutSeconds=soon", 400, metav1.StatusReasonBadRequest, "timeoutSeconds must be an integer"},
		{"resourceVersionMatch without a resourceVersion", "resourceVersionMatch=Exact", 422, metav1.StatusReasonInvalid, "resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"Exact at resourceVersion 0", "resourceVersion=0&resourceVersionMatch=Exact", 422, metav1.StatusReasonInvalid, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"sendInitialEvents on a list", "sendInitialEvents=true", 422, metav1.StatusReasonInvalid, "sendInitialEvents is forbidden for list"},
		{"sendInitialEvents without NotOlderThan", "watch=true&sendInitialEvents=true", 422, metav1.StatusReasonInvalid, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"resourceVersionMatch on a plain watch", "watch=true&resourceVersion=1&resourceVersionMatch=NotOlderThan", 422, metav1.StatusReasonInvalid, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
		{"a list newer than the log", "resourceVersion=9999", 504, metav1.StatusReasonTimeout, "Too large resource version: 9999"},
		{"an exact list newer than the log", "resourceVersion=9999&resourceVersionMatch=Exact", 504, metav1.StatusReasonTimeout, "Too large resource version: 9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := a.head(t)
			code, body := a.get(t, "/api/v1/nodes?"+tt.query, "")
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil {
				t.Fatalf("%d %s: not a Status", code, body)
			}
			if code != tt.code || st.Code != int32(tt.code) || st.Reason != tt.reason || st.Kind != "Status" || !strings.Contains(st.Message, tt.says) {
				t.Errorf("%d %s %q, want %d %s saying %q", code, st.Reason, st.Message, tt.code, tt.reason, tt.says)
			}
			if after := a.head(t); after != before {
				t.Errorf("the log moved from %d to %d", before, after)
			}
		})
	}
}

func names(t *testing.T, body []byte) (rv string, cont string, out []string) {
	t.Helper()
	var list corev1.NodeList
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("not a NodeList: %s", body)
	}
	for _, n := range list.Items {
		out = append(out, n.Name+"@"+n.ResourceVersion)
	}
	return list.ResourceVersion, list.Continue, out
}

func TestAnExactListShowsTheFleetAsItWas(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	a1 := a.do(t, "a", register("a", nil))
	b1 := a.do(t, "b", register("b", nil))
	at := a.head(t)
	a.do(t, "a", domain.DeleteNode{})
	a.do(t, "b", healthy())
	c := a.do(t, "c", register("c", nil))
	b2, _ := projections.NewNodeView(a.store.Log()).Get(t.Context(), "b")
	rv := func(n domain.Node) string { return n.Name + "@" + strconv.FormatInt(n.ResourceVersion, 10) }

	tests := []struct {
		name  string
		query string
		rv    int64
		want  []string
	}{
		{"exactly at a past position", "resourceVersion=" + strconv.FormatInt(at, 10) + "&resourceVersionMatch=Exact", at, []string{rv(a1), rv(b1)}},
		{"not older than it: the current state", "resourceVersion=" + strconv.FormatInt(at, 10), a.head(t), []string{rv(b2), rv(c)}},
		{"any: the current state", "resourceVersion=0", a.head(t), []string{rv(b2), rv(c)}},
		{"with a field selector, exactly then", "resourceVersion=" + strconv.FormatInt(at, 10) + "&resourceVersionMatch=Exact&fieldSelector=metadata.name%3Da", at, []string{rv(a1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := a.get(t, "/api/v1/nodes?"+tt.query, "")
			if code != http.StatusOK {
				t.Fatalf("%d %s", code, body)
			}
			gotRV, _, got := names(t, body)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if gotRV != strconv.FormatInt(tt.rv, 10) {
				t.Errorf("list resourceVersion %s, want %d", gotRV, tt.rv)
			}
		})
	}
}

func TestTablePagesCarryTheContinueToken(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	for _, n := range []string{"a", "b", "c"} {
		a.do(t, n, register(n, nil))
	}
	var rows []string
	cont := ""
	for pages := 0; ; pages++ {
		q := "/api/v1/nodes?limit=2"
		if cont != "" {
			q += "&continue=" + cont
		}
		code, body := a.get(t, q, "application/json;as=Table;v=v1;g=meta.k8s.io")
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		var tbl metav1.Table
		if err := json.Unmarshal(body, &tbl); err != nil || tbl.Kind != "Table" {
			t.Fatalf("not a Table: %s", body)
		}
		for _, r := range tbl.Rows {
			rows = append(rows, r.Cells[0].(string))
		}
		if cont = tbl.Continue; cont == "" {
			break
		}
		if pages > 3 {
			t.Fatal("the pages do not end")
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestAnExactListReachesBackAsFarAsTheLog: an exact list at any position
// the log holds, however long ago (far beyond the watch history, which
// still expires a watch from there), equals the fleet as it was listed at
// that moment: for every position of a run of random changes to a
// fleet, the list then and the exact list later agree, object for object.
func TestAnExactListReachesBackAsFarAsTheLog(t *testing.T) {
	a := newWatchAPI(t, watch.Config{History: time.Minute})
	rng := rand.New(rand.NewPCG(27, 29)) //nolint:gosec // a test's reproducible choices
	names := []string{"a", "b", "c", "d"}
	then := map[int64]string{}    // the list at each head, as it was read then
	when := map[int64]time.Time{} // the clock when each head was written
	for range 40 {
		n := names[rng.IntN(len(names))]
		cur, err := projections.NewNodeView(a.store.Log()).Get(t.Context(), n)
		switch {
		case err != nil || !cur.Exists():
			a.do(t, n, register(n, map[string]string{"round": strconv.Itoa(rng.IntN(100))}))
		case rng.IntN(4) == 0:
			a.do(t, n, domain.DeleteNode{})
		case rng.IntN(2) == 0:
			a.do(t, n, healthy())
		default:
			labels := maps.Clone(cur.Labels)
			labels["round"] = strconv.Itoa(rng.IntN(100))
			a.do(t, n, domain.SetNodeLabels{Labels: labels, Annotations: cur.Annotations})
		}
		when[a.head(t)] = a.clk.Now()
		a.clk.Step(time.Second)
		code, body := a.get(t, "/api/v1/nodes", "")
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		then[a.head(t)] = string(body)
	}
	a.clk.Step(time.Hour) // every position is far older than the watch history now
	for pos, want := range then {
		code, body := a.get(t, "/api/v1/nodes?resourceVersionMatch=Exact&resourceVersion="+strconv.FormatInt(pos, 10), "")
		if code != http.StatusOK {
			t.Fatalf("exact list at %d: %d %s", pos, code, body)
		}
		if diff := cmp.Diff(want, string(body)); diff != "" {
			t.Errorf("the fleet at %d, listed then and now (-then +now):\n%s", pos, diff)
		}
	}
	// herd's ?asOf= takes the time, a duration ago or the position.
	for pos, at := range when {
		for _, asOf := range []string{at.Add(time.Second / 2).Format(time.RFC3339Nano), strconv.FormatInt(pos, 10),
			(a.clk.Since(at) - time.Second/2).String()} {
			code, body := a.get(t, "/api/v1/nodes?asOf="+url.QueryEscape(asOf), "")
			if code != http.StatusOK || string(body) != then[pos] {
				t.Errorf("asOf=%s (position %d): %d\n%s\nwant\n%s", asOf, pos, code, body, then[pos])
			}
		}
	}
	if code, body := a.get(t, "/api/v1/nodes?asOf=5&resourceVersion=5", ""); code != http.StatusBadRequest {
		t.Errorf("asOf with a resourceVersion: %d %s", code, body)
	}
	// A watch from there is still expired, as kube-apiserver's would be:
	// from the oldest position, which events an hour old follow (from the
	// head, nothing follows, and a watch waits for what comes).
	oldest := slices.Min(slices.Collect(maps.Keys(then)))
	code, body := a.get(t, "/api/v1/nodes?watch=true&timeoutSeconds=1&resourceVersion="+strconv.FormatInt(oldest, 10), "")
	if code != http.StatusOK || !strings.Contains(string(body), `"code":410`) {
		t.Errorf("a watch from %d, an hour old: %d %s, want an ERROR event with 410", oldest, code, body)
	}
}
