package httpapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/projections"
)

// TestTimelinePagesGiveEveryEntryOnce: a node's timeline read a page at
// a time over loopback HTTP, each page from the continue the one before
// handed out, gives every entry exactly once, in order, for every limit —
// limits that end a page inside a mark's entries (the mark, its
// conditions gone Unknown, NotReady, the unreachable taints) included —
// on both engines; the page that holds the last entry hands out none,
// even when it is full; an after of a
// log position still reads the events after it; and an entry's place
// that is not one is 400 naming after.
func TestTimelinePagesGiveEveryEntryOnce(t *testing.T) {
	onEachEngineAPI(t, func(t *testing.T, a *testAPI) {
		ctx := t.Context()
		base := a.serve(t).URL
		const path = "/apis/herd.dev/v1/nodes/n1/timeline"
		mustSend(t, nil, base, 201, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("n1")})
		for range 2 {
			a.clock.Step(time.Minute)
			if _, err := a.writer.NodeCommands().Execute(ctx, domain.Key{Name: "n1"}, markSilent()); err != nil {
				t.Fatal(err)
			}
			a.clock.Step(time.Second)
			mustSend(t, nil, base, 200, req{method: "PATCH", path: "/api/v1/nodes/n1/status", contentType: mergePatch, body: readyPatch})
		}
		read := func(query string) NodeTimeline {
			t.Helper()
			var page NodeTimeline
			if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: path + query}).body, &page); err != nil {
				t.Fatal(err)
			}
			return page
		}
		all := read("").Items
		perPosition := map[int64]int{}
		for _, e := range all {
			perPosition[e.Position]++
		}
		longest := 0
		for _, n := range perPosition {
			longest = max(longest, n)
		}
		if longest < 4 {
			t.Fatalf("the longest event of n1's timeline has %d entries; a mark stands for more: %+v", longest, all)
		}
		for limit := 1; limit <= len(all)+1; limit++ {
			var got []projections.TimelineEntry
			query := fmt.Sprintf("?limit=%d", limit)
			for pages := 0; ; pages++ {
				if pages > len(all)+1 {
					t.Fatalf("limit %d: more pages than entries", limit)
				}
				page := read(query)
				got = append(got, page.Items...)
				if len(got) == len(all) && page.Continue != "" {
					t.Errorf("limit %d: the page with the last entry hands out continue %q", limit, page.Continue)
				}
				if len(got) < len(all) && (len(page.Items) != limit || page.Continue == "") {
					t.Fatalf("limit %d: a page of %d entries with %d left hands out continue %q", limit, len(page.Items), len(all)-len(got), page.Continue)
				}
				if page.Continue == "" {
					break
				}
				query = fmt.Sprintf("?limit=%d&after=%s", limit, url.QueryEscape(page.Continue))
			}
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("n1's timeline paged by %d (-whole +paged):\n%s", limit, diff)
			}
		}
		// An after of a position: the entries of the events after it.
		var want []projections.TimelineEntry
		for _, e := range all {
			if e.Position > all[1].Position {
				want = append(want, e)
			}
		}
		if diff := cmp.Diff(want, read(fmt.Sprintf("?after=%d", all[1].Position)).Items); diff != "" {
			t.Errorf("after=%d (-want +got):\n%s", all[1].Position, diff)
		}
		for _, bad := range []string{"1:", ":1", "1:-1", "1:x", "1:2:3", "x"} {
			badRequestNaming(t, send(t, nil, base, req{method: "GET", path: path + "?after=" + url.QueryEscape(bad)}), "after", bad)
		}
	})
}
