package loadgen

import (
	"bytes"
	"fmt"
	"mime"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// codecs are apimachinery's serializers for core/v1 and
// coordination.k8s.io/v1, the ones client-go sends a kubelet's Node and
// Lease with.
var codecs = func() serializer.CodecFactory {
	s := runtime.NewScheme()
	utilruntime.Must(corev1.AddToScheme(s))
	utilruntime.Must(coordinationv1.AddToScheme(s))
	return serializer.NewCodecFactory(s, serializer.WithSerializer(cbor.NewSerializerInfo))
}()

// mediaTypes are the media types of the encodings.
var mediaTypes = map[string]string{
	EncodingJSON:     runtime.ContentTypeJSON,
	EncodingProtobuf: runtime.ContentTypeProtobuf,
	EncodingCBOR:     runtime.ContentTypeCBOR,
}

// encodeAs encodes obj in media type mt.
func encodeAs(mt string, obj runtime.Object) ([]byte, error) {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mt)
	if !ok {
		return nil, fmt.Errorf("no serializer for %s", mt)
	}
	var buf bytes.Buffer
	if err := codecs.WithoutConversion().EncoderForVersion(info.Serializer, nil).Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("encode %T as %s: %w", obj, mt, err)
	}
	return buf.Bytes(), nil
}

// answeredIn checks that an answer's Content-Type is mt.
func answeredIn(contentType, mt string) error {
	got, _, err := mime.ParseMediaType(contentType)
	if err != nil || got != mt {
		return fmt.Errorf("herd answered in %q, not the %s asked for", contentType, mt)
	}
	return nil
}

// decodeAs decodes data, in media type mt, into obj.
func decodeAs(mt string, data []byte, obj runtime.Object) error {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mt)
	if !ok {
		return fmt.Errorf("no serializer for %s", mt)
	}
	if _, _, err := info.Serializer.Decode(data, nil, obj); err != nil {
		return fmt.Errorf("decode %T from %s: %w", obj, mt, err)
	}
	return nil
}
