package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/events"
	"herd/projections/watch"
)

// continueExpiredError is a continue token whose resourceVersion is older
// than the history herd keeps. next continues the listing from the same
// place, inconsistently, at the current state.
type continueExpiredError struct{ next string }

func (e *continueExpiredError) Error() string { return continueExpiredMessage }

// continueExpiredMessage is kube-apiserver's message for an expired
// continue token.
const continueExpiredMessage = "The provided continue parameter is too old to display a consistent list result. " +
	"You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. " +
	"Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

// serveList answers a list of res the Kubernetes way: label and field
// selectors; limit and continue, every page as of the resourceVersion of
// the first; resourceVersion with resourceVersionMatch (Exact lists the
// state at that log position, NotOlderThan or none the current one); and
// a server-side table when kubectl asks for one.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, res *apiResource, o listOptions) {
	req := watch.ListRequest{Resource: res.name, Limit: o.limit, Match: o.match}
	if o.namespace != "" {
		req.Prefix = o.namespace + "/"
	}
	switch {
	case o.cont != nil:
		req.At, req.After = o.cont.RV, o.cont.Start
	case o.rvMatch == metav1.ResourceVersionMatchExact:
		// Any position the log holds, however old: herd keeps its whole
		// history, unlike etcd after a compaction.
		req.At, req.Past = o.position, true
	}
	page, err := s.Watch.List(r.Context(), req)
	if errors.Is(err, watch.ErrExpired) && o.cont != nil {
		err = &continueExpiredError{next: continueToken{V: continueVersion, Start: o.cont.Start}.encode()}
	}
	if err == nil && page.ResourceVersion < o.position {
		// NotOlderThan a position the log has not reached.
		err = &watch.TooLargeError{Position: o.position, Current: page.ResourceVersion}
	}
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	if page.Thinned > 0 {
		w.Header().Add("Warning", thinnedWarning(page.ResourceVersion, page.Thinned))
	}
	lm := metav1.ListMeta{ResourceVersion: strconv.FormatInt(page.ResourceVersion, 10)}
	if page.More {
		lm.Continue = continueToken{V: continueVersion, RV: page.ResourceVersion, Start: page.Items[len(page.Items)-1].Meta.Key}.encode()
	}
	switch out := outputOf(w); {
	case out.info.MediaType == protobufType && !out.table:
		s.writeProtobufList(w, res, page.Items, lm)
		return
	case !out.isJSON() || (out.table && res.table == nil):
		// CBOR or a Table in protobuf, or the default Table of a kind
		// with no columns of its own (writeObject).
		s.writeTypedList(w, res, page.Items, lm)
		return
	}
	items := make([][]byte, len(page.Items))
	for i, obj := range page.Items {
		if items[i], err = obj.JSON(); err != nil {
			s.writeError(w, err, res.kind, obj.Meta.Key)
			return
		}
	}
	if wantsTable(w) {
		t, err := res.table(s, r, items, lm.ResourceVersion)
		if err != nil {
			s.writeError(w, err, res.kind, "")
			return
		}
		t.Continue = lm.Continue
		s.writeObject(w, http.StatusOK, &t)
		return
	}
	s.writeRawList(w, metav1.TypeMeta{Kind: res.kind + "List", APIVersion: res.apiVersion}, lm, items)
}

// writeRawList answers with a JSON list of items that herd encoded
// itself: their bytes are written as they are, one after another, rather
// than handed to encoding/json as json.RawMessage, which would scan and
// compact every byte of them again (a quarter of a second for 10,000
// nodes, profiled under load).
func (s *Server) writeRawList(w http.ResponseWriter, tm metav1.TypeMeta, lm metav1.ListMeta, items [][]byte) {
	// The list's fields in the order encoding/json gives them: kind,
	// apiVersion, metadata, items.
	kind, _ := json.Marshal(tm.Kind)
	apiVersion, _ := json.Marshal(tm.APIVersion)
	meta, err := json.Marshal(lm)
	if err != nil {
		s.writeError(w, err, tm.Kind, "")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, part := range [][]byte{[]byte(`{"kind":`), kind, []byte(`,"apiVersion":`), apiVersion, []byte(`,"metadata":`), meta, []byte(`,"items":[`)} {
		_, _ = bw.Write(part)
	}
	for i, item := range items {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		_, _ = bw.Write(item)
	}
	_, _ = bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		s.Logger.Debug("write response", zap.Error(err))
	}
}

// writeTypedList answers with a list of res's objects in the negotiated
// media type other than JSON: the list in its Kubernetes type (NodeList),
// encoded whole by apimachinery's serializer. JSON lists are put together
// from each object's JSON as the watch hub renders it, the JSON watches
// share.
func (s *Server) writeTypedList(w http.ResponseWriter, res *apiResource, objs []*watch.Object, lm metav1.ListMeta) {
	items := make([]runtime.Object, len(objs))
	for i, o := range objs {
		items[i] = res.object(o)
	}
	list := res.newList()
	if err := meta.SetList(list, items); err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	acc, err := meta.ListAccessor(list)
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	acc.SetResourceVersion(lm.ResourceVersion)
	acc.SetContinue(lm.Continue)
	s.writeObject(w, http.StatusOK, list)
}

// serveCollection is a GET of res's collection: a watch with ?watch=true,
// a list otherwise.
func (s *Server) serveCollection(w http.ResponseWriter, r *http.Request, res *apiResource) {
	o, err := parseListOptions(r, res)
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	if o.watch {
		s.serveWatch(w, r, res, o)
		return
	}
	if o.asOf != "" || o.rvMatch == metav1.ResourceVersionMatchExact {
		// A list of the past folds its objects from the log.
		var (
			done func()
			ok   bool
		)
		if r, done, ok = s.expensiveRead(w, r, res.kind); !ok {
			return
		}
		defer done()
	}
	if o.asOf != "" {
		pos, err := s.positionAsOf(r.Context(), o.asOf)
		if err != nil {
			s.writeError(w, err, res.kind, "")
			return
		}
		if pos == 0 {
			// Nothing was recorded by then: the fleet was empty.
			s.writeTypedList(w, res, nil, metav1.ListMeta{ResourceVersion: "0"})
			return
		}
		o.position, o.rvMatch = pos, metav1.ResourceVersionMatchExact
	}
	s.serveList(w, r, res, o)
}

// positionAsOf is the log position ?asOf= names: a resourceVersion as
// given, or for a time (RFC 3339, or a duration ago on herd's clock) the
// position of the newest event recorded at or before it, 0 when there is
// none.
func (s *Server) positionAsOf(ctx context.Context, asOf string) (int64, error) {
	if pos, err := strconv.ParseInt(asOf, 10, 64); err == nil {
		if pos < 1 {
			return 0, badRequest("asOf %q: a resourceVersion is a log position from 1", asOf)
		}
		return pos, nil
	}
	when, err := time.Parse(time.RFC3339, asOf)
	if err != nil {
		d, derr := time.ParseDuration(asOf)
		if derr != nil || d < 0 {
			return 0, badRequest("asOf %q: want an RFC 3339 time, a duration ago (2h) or a resourceVersion", asOf)
		}
		when = s.Clock.Now().Add(-d)
	}
	if err := checkTimeRange("asOf", asOf, when); err != nil {
		return 0, err
	}
	recs, err := s.Log.Query(ctx, events.Filter{Until: when.Add(time.Nanosecond), Limit: 1, Newest: true})
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	return recs[0].Position, nil
}

// thinnedWarning is the warning of a list of the past at position rv,
// before the log's compaction point through: kubectl and client-go print
// it (a Kubernetes Warning header, code 299).
func thinnedWarning(rv, through int64) string {
	return fmt.Sprintf(`299 herd "as of resourceVersion %d the retention policy has thinned heartbeats (through %d): each node shows the last heartbeat the log still holds"`, rv, through)
}
