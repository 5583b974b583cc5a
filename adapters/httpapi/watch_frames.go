package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/projections/watch"
)

// watchWriteTimeout bounds one write of watch events. A client that
// reads nothing for this long is gone or stuck, and its connection is
// closed: it cannot hold a connection, and the events it has not read,
// forever.
const watchWriteTimeout = 30 * time.Second

// Watch frame types besides watch.EventType's.
const (
	frameBookmark = "BOOKMARK"
	frameError    = "ERROR"
)

// frames writes one watch's events in the form its client asked for:
// Kubernetes' stream of JSON watch events, one a line (objects as
// Tables when kubectl asks for them), protobuf or CBOR frames (binary), or
// Server-Sent Events for browsers.
// Frames are buffered until flush, which sends them at once.
type frames struct {
	s   *Server
	r   *http.Request
	w   http.ResponseWriter
	rc  *http.ResponseController
	res *apiResource
	// sse selects Server-Sent Events.
	sse bool
	// table renders objects as Tables; headersSent is set once the first
	// Table with column definitions went out, as kube-apiserver sends them
	// only once per watch.
	table, headersSent bool
	buf                bytes.Buffer
	// binary writes protobuf and CBOR frames; nil for JSON and
	// Server-Sent Events.
	binary *binaryFrames
	// broken is the error of a write that failed: the client is gone or
	// stopped reading, and nothing more can be sent.
	broken error
}

// startStream answers 200 with the headers of a watch stream and returns
// the watch's frame writer. The server's read deadline is lifted: a watch
// lasts as long as it lasts.
func (s *Server) startStream(w http.ResponseWriter, r *http.Request, res *apiResource) *frames {
	out := outputOf(w)
	f := &frames{s: s, r: r, w: w, rc: http.NewResponseController(w), res: res, sse: out.sse, table: out.table}
	_ = f.rc.SetReadDeadline(time.Time{}) // not every ResponseWriter has a connection (tests)
	switch {
	case f.sse:
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
	case out.isJSON():
		w.Header().Set("Content-Type", "application/json")
	default:
		f.binary = newBinaryFrames(out.info, &f.buf)
		w.Header().Set("Content-Type", f.binary.contentType)
	}
	w.WriteHeader(http.StatusOK)
	return f
}

// wantsEventStreamHeader says whether an Accept header names Server-Sent
// Events, as a browser's EventSource sends.
func wantsEventStreamHeader(accept string) bool {
	return strings.Contains(accept, "text/event-stream")
}

// event writes one change. Synthetic events (the initial state) carry no
// Server-Sent Events id: resuming from the middle of them would be wrong.
func (f *frames) event(typ watch.EventType, obj *watch.Object, synthetic bool) error {
	if f.binary != nil {
		return f.binary.event(string(typ), f.res, obj)
	}
	data, err := obj.JSON()
	if err != nil {
		return err
	}
	rv := strconv.FormatInt(obj.ResourceVersion, 10)
	if f.table {
		t, err := f.res.table(f.s, f.r, [][]byte{data}, rv)
		if err != nil {
			return err
		}
		if f.headersSent {
			t.ColumnDefinitions = nil
		}
		f.headersSent = true
		if data, err = json.Marshal(t); err != nil {
			return err
		}
	}
	id := obj.ResourceVersion
	if synthetic {
		id = 0
	}
	f.frame(string(typ), data, id)
	return nil
}

// bookmark tells the client it has seen everything up to rv; initialEnd
// marks the end of the initial state (k8s.io/initial-events-end).
func (f *frames) bookmark(rv int64, initialEnd bool) {
	srv := strconv.FormatInt(rv, 10)
	if f.binary != nil {
		f.binary.bookmark(f.res, srv, initialEnd)
		return
	}
	var obj any
	if f.table {
		obj = metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}, ListMeta: metav1.ListMeta{ResourceVersion: srv}}
	} else {
		m := metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{Kind: f.res.kind, APIVersion: f.res.apiVersion},
			ObjectMeta: metav1.ObjectMeta{ResourceVersion: srv},
		}
		if initialEnd {
			m.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
		}
		obj = m
	}
	data, _ := json.Marshal(obj)
	f.frame(frameBookmark, data, rv)
}

// position tells a Server-Sent Events client where it is, without an
// event: where EventSource resumes from after a reconnect. Other clients
// get nothing.
func (f *frames) position(rv int64) {
	if f.sse {
		f.buf.WriteString("id: " + strconv.FormatInt(rv, 10) + "\n\n")
	}
}

// status writes an ERROR event carrying st.
func (f *frames) status(st metav1.Status) {
	if f.binary != nil {
		_ = f.binary.frame(frameError, &st)
		return
	}
	data, _ := json.Marshal(st)
	f.frame(frameError, data, 0)
}

func (f *frames) frame(typ string, obj []byte, id int64) {
	b := &f.buf
	if f.sse {
		if id > 0 {
			b.WriteString("id: " + strconv.FormatInt(id, 10) + "\n")
		}
		b.WriteString("event: " + typ + "\ndata: ")
	}
	b.WriteString(`{"type":"` + typ + `","object":`)
	b.Write(obj)
	b.WriteString("}\n")
	if f.sse {
		b.WriteString("\n")
	}
}

// flush sends the buffered frames to the client now.
func (f *frames) flush() error {
	if f.broken != nil {
		return f.broken
	}
	if f.buf.Len() > 0 {
		_ = f.rc.SetWriteDeadline(time.Now().Add(watchWriteTimeout))
		_, err := f.w.Write(f.buf.Bytes())
		f.buf.Reset()
		if err != nil {
			f.broken = err
			return err
		}
	}
	if err := f.rc.Flush(); err != nil {
		f.broken = err
		return err
	}
	return nil
}
