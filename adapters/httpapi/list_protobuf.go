package httpapi

import (
	"bufio"
	"encoding/binary"
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
// its JSON is: the list is put together around them rather than built as
// a NodeList and encoded whole on every list. The bytes are what
// apimachinery's serializer writes for the same list (a test decodes and
// encodes it again to compare): the "k8s\0" prefix, then a runtime.Unknown
// whose raw bytes are the list message, its metadata in field 1 and each
// item in field 2, as every generated list type of the API has them.
func (s *Server) writeProtobufList(w http.ResponseWriter, res *apiResource, objs []*watch.Object, lm metav1.ListMeta) {
	if _, ok := res.newObject().(marshaler); !ok {
		s.writeTypedList(w, res, objs, lm)
		return
	}
	items := make([][]byte, len(objs))
	size := 0
	for i, o := range objs {
		data, err := o.Rendered(protobufItem{}, func() ([]byte, error) {
			return res.object(o).(marshaler).Marshal()
		})
		if err != nil {
			s.writeError(w, err, res.kind, o.Meta.Key)
			return
		}
		items[i] = data
		size += 1 + binary.MaxVarintLen64 + len(data)
	}
	meta, err := lm.Marshal()
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	list := make([]byte, 0, size+len(meta)+binary.MaxVarintLen64+1)
	list = appendField(list, 1, meta)
	for _, item := range items {
		list = appendField(list, 2, item)
	}
	unknown := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: res.apiVersion, Kind: res.kind + "List"}, Raw: list}
	body, err := unknown.Marshal()
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	w.Header().Set("Content-Type", protobufType)
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.Write(protobufMagic)
	_, _ = bw.Write(body)
	if err := bw.Flush(); err != nil {
		s.Logger.Debug("write response", zap.Error(err))
	}
}

// appendField appends a length-delimited protobuf field: its tag (field
// number and wire type 2), its length and its bytes.
func appendField(b []byte, field uint64, data []byte) []byte {
	b = binary.AppendUvarint(b, field<<3|2)
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}
