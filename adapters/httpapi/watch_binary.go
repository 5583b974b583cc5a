package httpapi

import (
	"bytes"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"

	"herd/projections/watch"
)

// binaryFrames writes a watch's events in protobuf or CBOR, as
// kube-apiserver does: each event a metav1.WatchEvent whose object is a
// runtime.RawExtension holding the object encoded on its own (protobuf
// with its "k8s\x00" envelope, CBOR with its self-describing tag), and the
// events framed by the media type's framer (a four-byte big-endian length
// before each protobuf event; CBOR data items one after another, a CBOR
// sequence).
type binaryFrames struct {
	// contentType is the stream's media type:
	// application/vnd.kubernetes.protobuf;stream=watch or
	// application/cbor-seq.
	contentType string
	// mediaType is the objects' media type.
	mediaType string
	// embedded encodes the objects; events the framed events.
	embedded runtime.Encoder
	events   streaming.Encoder
	obj      bytes.Buffer
}

// newBinaryFrames writes info's watch frames to out.
func newBinaryFrames(info runtime.SerializerInfo, out *bytes.Buffer) *binaryFrames {
	ct := info.MediaType + ";stream=watch"
	if info.MediaType == runtime.ContentTypeCBOR {
		// One CBOR data item per event: a CBOR sequence (RFC 8742), the
		// media type kube-apiserver answers a CBOR watch with.
		ct = runtime.ContentTypeCBORSequence
	}
	return &binaryFrames{
		contentType: ct,
		mediaType:   info.MediaType,
		embedded:    codecs.WithoutConversion().EncoderForVersion(info.Serializer, nil),
		events:      streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(out), info.StreamSerializer.Serializer),
	}
}

// frame writes one event of type typ carrying obj.
func (b *binaryFrames) frame(typ string, obj runtime.Object) error {
	b.obj.Reset()
	if err := b.embedded.Encode(obj, &b.obj); err != nil {
		return err
	}
	return b.raw(typ, b.obj.Bytes())
}

// embeddedIn is the key under which a watch object keeps its encoding as
// the object of a watch event in a media type (watch.Object.Rendered).
type embeddedIn struct{ mediaType string }

// event writes one change of the watch hub's object o, encoded once for
// every watcher: the object keeps the bytes, and they go when it does.
func (b *binaryFrames) event(typ string, res *apiResource, o *watch.Object) error {
	data, err := o.Rendered(embeddedIn{b.mediaType}, func() ([]byte, error) {
		var buf bytes.Buffer
		if err := b.embedded.Encode(res.object(o), &buf); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
	if err != nil {
		return err
	}
	return b.raw(typ, data)
}

// raw writes one event whose object is already encoded.
func (b *binaryFrames) raw(typ string, obj []byte) error {
	return b.events.Encode(&metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: obj}})
}

// bookmark writes a BOOKMARK: an empty object of res's kind carrying only
// the resourceVersion (and the end-of-initial-events annotation), as
// client-go decodes it into the watched type.
func (b *binaryFrames) bookmark(res *apiResource, rv string, initialEnd bool) {
	obj := res.newObject()
	acc, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	acc.SetResourceVersion(rv)
	if initialEnd {
		acc.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	_ = b.frame(frameBookmark, obj)
}
