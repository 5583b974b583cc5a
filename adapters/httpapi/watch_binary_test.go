package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	restwatch "k8s.io/client-go/rest/watch"

	herdwatch "herd/projections/watch"
)

// binaryWatch is a watch read the way client-go reads one: framed
// WatchEvents, each object decoded with the media type's serializer.
type binaryWatch struct {
	ct     string
	dec    *restwatch.Decoder
	cancel context.CancelFunc
}

// openBinaryWatch starts a watch of path asking for accept, the media
// type mt's frames expected back.
func openBinaryWatch(t testing.TB, base, path, accept, mt string) *binaryWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r, err := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = resp.Body.Close()
	})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s: %d", path, resp.StatusCode)
	}
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mt)
	if !ok || info.StreamSerializer == nil {
		t.Fatalf("no stream serializer for %s", mt)
	}
	frames := info.StreamSerializer.Framer.NewFrameReader(resp.Body)
	events := streaming.NewDecoder(frames, info.StreamSerializer.Serializer)
	return &binaryWatch{ct: resp.Header.Get("Content-Type"), dec: restwatch.NewDecoder(events, info.Serializer), cancel: cancel}
}

// next is the next event.
func (b *binaryWatch) next(t testing.TB) (watch.EventType, runtime.Object) {
	t.Helper()
	typ, obj, err := b.dec.Decode()
	if err != nil {
		t.Fatalf("read watch event: %v", err)
	}
	return typ, obj
}

// TestWatchesStreamProtobufAndCBOR: a watch asked for in protobuf streams
// length-prefixed WatchEvents holding protobuf objects, one asked for in
// CBOR a CBOR sequence; both carry the initial state, changes, bookmarks
// and error Statuses, which client-go's own decoder reads.
func TestWatchesStreamProtobufAndCBOR(t *testing.T) {
	// A resourceVersion past the log's head is answered at once.
	a := newWatchAPI(t, herdwatch.Config{WaitForPosition: time.Millisecond})
	a.do(t, "n1", register("n1", nil))
	for _, tc := range []struct{ accept, mt, ct string }{
		{"application/vnd.kubernetes.protobuf, application/json", runtime.ContentTypeProtobuf, "application/vnd.kubernetes.protobuf;stream=watch"},
		{"application/vnd.kubernetes.protobuf;stream=watch", runtime.ContentTypeProtobuf, "application/vnd.kubernetes.protobuf;stream=watch"},
		{"application/json;q=0.9, application/cbor", runtime.ContentTypeCBOR, "application/cbor-seq"},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			// A watch without a resourceVersion starts from the log's head,
			// which the hub must hold within this test's 1 ms wait: the
			// writes of the previous case may still be on their way to it.
			head := a.head(t)
			eventually(t, func() bool { return a.hub.Position() >= head }, "the watch hub holds the log's head")
			w := openBinaryWatch(t, a.url, "/api/v1/nodes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", tc.accept, tc.mt)
			if w.ct != tc.ct {
				t.Fatalf("Content-Type %q, want %q", w.ct, tc.ct)
			}
			typ, obj := w.next(t)
			if n, ok := obj.(*corev1.Node); typ != watch.Added || !ok || n.Name != "n1" {
				t.Fatalf("first event %s %#v, want ADDED n1", typ, obj)
			}
			typ, obj = w.next(t)
			n, ok := obj.(*corev1.Node)
			if typ != watch.Bookmark || !ok || n.Annotations[metav1.InitialEventsAnnotationKey] != "true" || n.ResourceVersion == "" {
				t.Fatalf("second event %s %#v, want the initial-events-end BOOKMARK", typ, obj)
			}
			a.do(t, "n1", healthy())
			typ, obj = w.next(t)
			if n, ok := obj.(*corev1.Node); typ != watch.Modified || !ok || n.Name != "n1" {
				t.Fatalf("third event %s %#v, want MODIFIED n1", typ, obj)
			}

			e := openBinaryWatch(t, a.url, "/api/v1/nodes?watch=true&resourceVersion=999999", tc.accept, tc.mt)
			typ, obj = e.next(t)
			st, ok := obj.(*metav1.Status)
			if typ != watch.Error || !ok || st.Code != http.StatusGatewayTimeout || !strings.Contains(st.Details.Causes[0].Message, "Too large") {
				t.Fatalf("event %s %#v, want an ERROR with the too-large Status", typ, obj)
			}
		})
	}
}
