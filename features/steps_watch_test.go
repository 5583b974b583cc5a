package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// watchWait bounds the wait for a watch event; herd delivers in
// milliseconds.
const watchWait = 10 * time.Second

// watching is what the watch steps hold between steps: the last list's
// resourceVersion, a client's open watch, and a listing read page by page.
type watching struct {
	listRV string
	stream *watchStream
	// seen are the events the last watch table read, as node@position.
	seen  []string
	pages listing
}

func (ws *watching) close() {
	if ws.stream != nil {
		ws.stream.close()
		ws.stream = nil
	}
}

// watchFrame is one event of a watch as it comes over the wire.
type watchFrame struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// watchStream is an open watch: its frames arrive on frames, which is
// closed when the stream ends.
type watchStream struct {
	cancel context.CancelFunc
	frames chan watchFrame
}

func (s *watchStream) close() {
	s.cancel()
	for range s.frames {
	}
}

// next is the stream's next frame, or io.EOF once it has ended.
func (s *watchStream) next() (watchFrame, error) {
	select {
	case f, ok := <-s.frames:
		if !ok {
			return watchFrame{}, io.EOF
		}
		return f, nil
	case <-time.After(watchWait):
		return watchFrame{}, fmt.Errorf("no watch event within %s", watchWait)
	}
}

// openWatch watches the nodes with the query given, as a Kubernetes client
// does, and reads its frames as they come.
func (w *world) openWatch(query url.Values) error {
	w.watching.close()
	query.Set("watch", "true")
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.server.URL()+nodesPath+"?"+query.Encode(), nil)
	if err != nil {
		cancel()
		return err
	}
	req.Header.Set("Accept", "application/json")
	// A watch lasts; the world's client gives up on requests that do.
	resp, err := (&http.Client{Transport: w.client.Transport}).Do(req) //nolint:bodyclose // a watch stream: its reading goroutine closes the body
	if err != nil {
		cancel()
		return err
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("watch %s: %s %s", query.Encode(), resp.Status, body)
	}
	s := &watchStream{cancel: cancel, frames: make(chan watchFrame, 1024)}
	go func() {
		defer close(s.frames)
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var f watchFrame
			if err := dec.Decode(&f); err != nil {
				return
			}
			s.frames <- f
		}
	}()
	w.watching.stream = s
	return nil
}

func (w *world) registerWatchSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a client has listed the nodes$`, w.clientListed)
	sc.Step(`^a client watches the nodes from the resourceVersion of its list$`, w.watchesFromList)
	sc.Step(`^a client watches the nodes from now(, allowing bookmarks)?$`, w.watchesFromNow)
	sc.Step(`^a client watches the nodes from now for (\d+) seconds, allowing bookmarks$`, w.watchesFromNowFor)
	sc.Step(`^the watch has ended$`, w.watchHasEnded)
	sc.Step(`^a client watches the node "([^"]+)" from now$`, w.watchesNodeFromNow)
	sc.Step(`^a client watches the nodes with sendInitialEvents$`, w.watchesWithInitialEvents)
	sc.Step(`^the watch shows, in order:$`, w.watchShows)
	sc.Step(`^these are every change to a node the log holds after the list$`, w.everyChangeAfterList)
	sc.Step(`^the watch's next event is (\w+) "([^"]+)"$`, w.nextEventIs)
	sc.Step(`^the watch shows a BOOKMARK at the log head( that marks the end of the initial events)?$`, w.bookmarkAtHead)
	sc.Step(`^the watch ends with an ERROR event: (\d+) (\w+)$`, w.watchEndsWithError)

	sc.Step(`^a client reads the first page of nodes, (\d+) at a time$`, w.readsFirstPage)
	sc.Step(`^the client reads the remaining pages$`, w.readsRemainingPages)
	sc.Step(`^the client reads the next page$`, w.readsNextPage)
	sc.Step(`^the pages show exactly (.+), as they were when the first page was read$`, w.pagesShow)
	sc.Step(`^the error offers a continue token that lists the rest as it is now$`, w.errorOffersContinue)
}

func (w *world) clientListed() error {
	list, err := w.listNodes("")
	if err != nil {
		return err
	}
	w.watching.listRV = list.ResourceVersion
	return nil
}

func (w *world) watchesFromList() error {
	if w.watching.listRV == "" {
		return errors.New("no client has listed the nodes yet")
	}
	return w.openWatch(url.Values{"resourceVersion": {w.watching.listRV}})
}

func (w *world) watchesFromNow(bookmarks string) error {
	if err := w.clientListed(); err != nil {
		return err
	}
	q := url.Values{"resourceVersion": {w.watching.listRV}}
	if bookmarks != "" {
		q.Set("allowWatchBookmarks", "true")
	}
	return w.openWatch(q)
}

func (w *world) watchesFromNowFor(seconds int) error {
	if err := w.clientListed(); err != nil {
		return err
	}
	return w.openWatch(url.Values{"resourceVersion": {w.watching.listRV}, "allowWatchBookmarks": {"true"}, "timeoutSeconds": {strconv.Itoa(seconds)}})
}

func (w *world) watchHasEnded() error {
	if w.watching.stream == nil {
		return errors.New("no client is watching")
	}
	f, err := w.watching.stream.next()
	if err == nil {
		return fmt.Errorf("the watch goes on: %s %s", f.Type, f.Object)
	}
	if !errors.Is(err, io.EOF) {
		return fmt.Errorf("the watch ends with %w, want the end of the stream", err)
	}
	return nil
}

func (w *world) watchesNodeFromNow(name string) error {
	if err := w.clientListed(); err != nil {
		return err
	}
	return w.openWatch(url.Values{"resourceVersion": {w.watching.listRV}, "fieldSelector": {"metadata.name=" + name}})
}

func (w *world) watchesWithInitialEvents() error {
	return w.openWatch(url.Values{
		"sendInitialEvents": {"true"}, "resourceVersionMatch": {"NotOlderThan"}, "allowWatchBookmarks": {"true"},
	})
}

// nextNode reads the next frame, which must carry a Node.
func (w *world) nextNode() (string, corev1.Node, error) {
	if w.watching.stream == nil {
		return "", corev1.Node{}, errors.New("no client is watching")
	}
	f, err := w.watching.stream.next()
	if err != nil {
		return "", corev1.Node{}, err
	}
	var n corev1.Node
	if err := json.Unmarshal(f.Object, &n); err != nil {
		return "", n, fmt.Errorf("a %s event whose object is not a Node: %s", f.Type, f.Object)
	}
	return f.Type, n, nil
}

// watchShows reads one event per row and checks it: its type, its node,
// the log event whose position is its resourceVersion ("current state"
// for the initial state: the node's resourceVersion now), and optionally
// a condition's status in the node it carries.
func (w *world) watchShows(t *godog.Table) error {
	rows, err := tableRows(t, "type", "node", "caused by")
	if err != nil {
		return err
	}
	log, err := w.logRecords(nil)
	if err != nil {
		return err
	}
	byPosition := map[int64]auditEvent{}
	for _, r := range log {
		byPosition[r.Position] = r
	}
	w.watching.seen = nil
	for i, row := range rows {
		typ, n, err := w.nextNode()
		if err != nil {
			return fmt.Errorf("event %d: %w", i+1, err)
		}
		rv, err := resourceVersion(n.ResourceVersion)
		if err != nil {
			return err
		}
		w.watching.seen = append(w.watching.seen, fmt.Sprintf("%s@%d", n.Name, rv))
		got := fmt.Sprintf("%s %s", typ, n.Name)
		if want := row["type"] + " " + row["node"]; got != want {
			return fmt.Errorf("event %d is %s@%d, want %s", i+1, got, rv, want)
		}
		if cause := row["caused by"]; cause == "current state" {
			now, err := w.node(n.Name)
			if err != nil {
				return err
			}
			if now.ResourceVersion != n.ResourceVersion {
				return fmt.Errorf("event %d: %s at %d, but the node is at %s", i+1, got, rv, now.ResourceVersion)
			}
		} else if rec := byPosition[rv]; rec.Type != cause || rec.Stream != "node/"+n.Name {
			return fmt.Errorf("event %d: %s at %d, where the log holds %s of %s, want %s", i+1, got, rv, rec.Type, rec.Stream, cause)
		}
		for col, want := range row {
			switch col {
			case "type", "node", "caused by":
				continue
			}
			if want == "" {
				continue
			}
			c, ok := nodeCondition(n, col)
			if !ok || string(c.Status) != want {
				return fmt.Errorf("event %d: %s at %d carries %s %q, want %q", i+1, got, rv, col, c.Status, want)
			}
		}
	}
	return nil
}

func nodeCondition(n corev1.Node, t string) (corev1.NodeCondition, bool) {
	for _, c := range n.Status.Conditions {
		if string(c.Type) == t {
			return c, true
		}
	}
	return corev1.NodeCondition{}, false
}

// everyChangeAfterList checks that the events the last watch table read
// are every write to a node the log holds after the list's
// resourceVersion: none missed, none twice.
func (w *world) everyChangeAfterList() error {
	after, err := resourceVersion(w.watching.listRV)
	if err != nil {
		return err
	}
	recs, err := w.logRecords(url.Values{"stream": {"node/"}})
	if err != nil {
		return err
	}
	// One write to a node (a command's events, the log marks those after
	// the first) is one change, at its last event's position.
	var want []string
	for i, r := range recs {
		if i+1 < len(recs) {
			next := recs[i+1]
			if next.Continues && next.Stream == r.Stream && next.Position == r.Position+1 {
				continue
			}
		}
		if r.Position > after {
			want = append(want, fmt.Sprintf("%s@%d", strings.TrimPrefix(r.Stream, "node/"), r.Position))
		}
	}
	if !slices.Equal(w.watching.seen, want) {
		return fmt.Errorf("the watch from %s showed %v; the log's node events after it are %v", w.watching.listRV, w.watching.seen, want)
	}
	return nil
}

func (w *world) nextEventIs(typ, name string) error {
	got, n, err := w.nextNode()
	if err != nil {
		return err
	}
	if got != typ || n.Name != name {
		return fmt.Errorf("the next event is %s %s@%s, want %s %s", got, n.Name, n.ResourceVersion, typ, name)
	}
	return nil
}

func (w *world) bookmarkAtHead(initialEnd string) error {
	if w.watching.stream == nil {
		return errors.New("no client is watching")
	}
	f, err := w.watching.stream.next()
	if err != nil {
		return err
	}
	var obj metav1.PartialObjectMetadata
	if err := json.Unmarshal(f.Object, &obj); err != nil {
		return err
	}
	list, err := w.listNodes("")
	if err != nil {
		return err
	}
	if f.Type != "BOOKMARK" || obj.Kind != "Node" || obj.ResourceVersion != list.ResourceVersion {
		return fmt.Errorf("got %s %s, want a BOOKMARK of a Node at the log head %s", f.Type, f.Object, list.ResourceVersion)
	}
	marked := obj.Annotations[metav1.InitialEventsAnnotationKey] == "true"
	if want := initialEnd != ""; marked != want {
		return fmt.Errorf("the bookmark's %s annotation is %v, want %v: %s", metav1.InitialEventsAnnotationKey, marked, want, f.Object)
	}
	return nil
}

func (w *world) watchEndsWithError(code int, reason string) error {
	if w.watching.stream == nil {
		return errors.New("no client is watching")
	}
	f, err := w.watching.stream.next()
	if err != nil {
		return err
	}
	var st metav1.Status
	if err := json.Unmarshal(f.Object, &st); err != nil {
		return err
	}
	if f.Type != "ERROR" || st.Kind != "Status" || int(st.Code) != code || string(st.Reason) != reason {
		return fmt.Errorf("got %s %s, want an ERROR with a %d %s Status", f.Type, f.Object, code, reason)
	}
	if f, err := w.watching.stream.next(); err == nil {
		return fmt.Errorf("the watch went on after the error: %s %s", f.Type, f.Object)
	} else if !errors.Is(err, io.EOF) {
		return fmt.Errorf("the watch ends with %w after the error, want the end of the stream", err)
	}
	return nil
}

// listing is a list read page by page.
type listing struct {
	limit    int
	rv       string
	cont     string
	items    []corev1.Node
	pageRVs  []string
	finished bool
}

func (w *world) readPage(query url.Values) error {
	r, err := w.do(http.MethodGet, nodesPath+"?"+query.Encode(), "", nil)
	if err != nil {
		return err
	}
	w.last = r
	if r.code != http.StatusOK {
		return nil // a refusal is for a Then step to judge
	}
	var list corev1.NodeList
	if err := json.Unmarshal(r.body, &list); err != nil {
		return fmt.Errorf("a page that is not a NodeList: %w", err)
	}
	p := &w.watching.pages
	if p.rv == "" {
		p.rv = list.ResourceVersion
	}
	p.items = append(p.items, list.Items...)
	p.pageRVs = append(p.pageRVs, list.ResourceVersion)
	p.cont = list.Continue
	p.finished = list.Continue == ""
	if len(list.Items) > p.limit {
		return fmt.Errorf("a page of %d nodes for a limit of %d", len(list.Items), p.limit)
	}
	return nil
}

func (w *world) readsFirstPage(limit int) error {
	w.watching.pages = listing{limit: limit}
	if err := w.readPage(url.Values{"limit": {strconv.Itoa(limit)}}); err != nil {
		return err
	}
	if w.last.code != http.StatusOK {
		return fmt.Errorf("the first page: %s", w.last)
	}
	return nil
}

func (w *world) readsNextPage() error {
	p := &w.watching.pages
	if p.finished || p.cont == "" {
		return errors.New("there is no next page")
	}
	return w.readPage(url.Values{"limit": {strconv.Itoa(p.limit)}, "continue": {p.cont}})
}

func (w *world) readsRemainingPages() error {
	for !w.watching.pages.finished {
		if err := w.readsNextPage(); err != nil {
			return err
		}
		if w.last.code != http.StatusOK {
			return fmt.Errorf("a later page: %s", w.last)
		}
	}
	return nil
}

// pagesShow checks the listing's nodes by name and that every page is as
// of the first page's resourceVersion, each node at the last event of its
// stream up to it.
func (w *world) pagesShow(list string) error {
	p := w.watching.pages
	var got []string
	for _, n := range p.items {
		got = append(got, n.Name)
	}
	if want := splitList(list); !slices.Equal(got, want) {
		return fmt.Errorf("the pages show %v, want %v", got, want)
	}
	for _, rv := range p.pageRVs {
		if rv != p.rv {
			return fmt.Errorf("pages at resourceVersions %v, want all at %s", p.pageRVs, p.rv)
		}
	}
	at, err := resourceVersion(p.rv)
	if err != nil {
		return err
	}
	log, err := w.logRecords(url.Values{"stream": {"node/"}})
	if err != nil {
		return err
	}
	lastUpTo := map[string]int64{}
	for _, r := range log {
		if r.Position <= at {
			lastUpTo[strings.TrimPrefix(r.Stream, "node/")] = r.Position
		}
	}
	for _, n := range p.items {
		if want := strconv.FormatInt(lastUpTo[n.Name], 10); n.ResourceVersion != want {
			return fmt.Errorf("%s is shown at %s; at %s its last event was at %s", n.Name, n.ResourceVersion, p.rv, want)
		}
	}
	return nil
}

// errorOffersContinue follows the continue token in the last Status: it
// must list the rest of the nodes as they are now.
func (w *world) errorOffersContinue() error {
	st, err := w.status()
	if err != nil {
		return err
	}
	if st.Continue == "" {
		return fmt.Errorf("the Status offers no continue token: %s", w.last)
	}
	var list corev1.NodeList
	if err := w.get(nodesPath+"?"+url.Values{"continue": {st.Continue}}.Encode(), &list); err != nil {
		return err
	}
	last := w.watching.pages.items[len(w.watching.pages.items)-1].Name
	now, err := w.listNodes("")
	if err != nil {
		return err
	}
	var want []corev1.Node
	for _, n := range now.Items {
		if n.Name > last {
			want = append(want, n)
		}
	}
	got, _ := json.Marshal(list.Items)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		return fmt.Errorf("the continue token lists %s; the nodes after %s now are %s", got, last, exp)
	}
	return nil
}
