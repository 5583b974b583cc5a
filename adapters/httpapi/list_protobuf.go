package httpapi

import (
	"bufio"
	"encoding/binary"
	"math/bits"
	"net/http"

	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/projections/watch"
)

// protobufItem is the key under which a watch object keeps its protobuf
// rendering (watch.Object.Rendered).
type protobufItem struct{}

// marshaler is a Kubernetes type's generated protobuf encoder.
type marshaler interface {
	Marshal() ([]byte, error)
}

// protobufMagic begins every protobuf body of the Kubernetes API.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00} // "k8s\0"

// writeProtobufList answers with a protobuf list of res's objects, each
// object's bytes rendered once per version and kept by the watch hub, as
// its JSON is: the list is written around them, straight to the answer,
// rather than built as a NodeList and encoded whole on every list. The
// bytes are what apimachinery's serializer writes for the same list (a
// test decodes and encodes it again to compare): the "k8s\0" prefix, then
// a runtime.Unknown — its TypeMeta in field 1, the list message as its raw
// bytes in field 2, and its empty content encoding and type in fields 3
// and 4 — whose list message holds its metadata in field 1 and each item
// in field 2, as every generated list type of the API has them.
func (s *Server) writeProtobufList(w http.ResponseWriter, res *apiResource, objs []*watch.Object, lm metav1.ListMeta) {
	if _, ok := res.newObject().(marshaler); !ok {
		s.writeTypedList(w, res, objs, lm)
		return
	}
	meta, err := lm.Marshal()
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	items := make([][]byte, len(objs))
	size := fieldSize(len(meta))
	for i, o := range objs {
		data, err := o.Rendered(protobufItem{}, func() ([]byte, error) {
			return res.object(o).(marshaler).Marshal()
		})
		if err != nil {
			s.writeError(w, err, res.kind, o.Meta.Key)
			return
		}
		items[i] = data
		size += fieldSize(len(data))
	}
	typeMeta, err := (&runtime.TypeMeta{APIVersion: res.apiVersion, Kind: res.kind + "List"}).Marshal()
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	w.Header().Set("Content-Type", protobufType)
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.Write(protobufMagic)
	_, _ = bw.Write(appendField(nil, 1, typeMeta))
	_, _ = bw.Write(fieldHeader(nil, 2, size))
	_, _ = bw.Write(appendField(nil, 1, meta))
	var head [2 * binary.MaxVarintLen64]byte
	for _, item := range items {
		_, _ = bw.Write(fieldHeader(head[:0], 2, len(item)))
		_, _ = bw.Write(item)
	}
	_, _ = bw.Write(appendField(appendField(nil, 3, nil), 4, nil))
	if err := bw.Flush(); err != nil {
		s.Logger.Debug("write response", zap.Error(err))
	}
}

// fieldHeader appends the head of a length-delimited protobuf field: its
// tag (field number and wire type 2) and its length.
func fieldHeader(b []byte, field uint64, length int) []byte {
	b = binary.AppendUvarint(b, field<<3|2)
	return binary.AppendUvarint(b, uint64(length))
}

// appendField appends a length-delimited protobuf field whole.
func appendField(b []byte, field uint64, data []byte) []byte {
	return append(fieldHeader(b, field, len(data)), data...)
}

// fieldSize is how many bytes a length-delimited field of a field number
// below 16 takes with length bytes of data.
func fieldSize(length int) int {
	return 1 + (bits.Len64(uint64(length)|1)+6)/7 + length
}
