package httpapi

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// protobufType is Kubernetes' protobuf media type. kubectl's typed
// commands (kubectl create configmap) send built-in objects in it.
const protobufType = "application/vnd.kubernetes.protobuf"

// protobufCodec decodes the core/v1 objects herd accepts in protobuf, with
// apimachinery's own serializer (the "k8s\x00" envelope around the
// generated protobuf of k8s.io/api).
var protobufCodec = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(fmt.Sprintf("core/v1 scheme: %v", err))
	}
	return protobuf.NewSerializer(scheme, scheme)
}()

// decodeProtobuf reads a protobuf-encoded object into into.
func decodeProtobuf(data []byte, into runtime.Object) error {
	if _, _, err := protobufCodec.Decode(data, nil, into); err != nil {
		return badRequest("the request body is not a valid protobuf %T: %v", into, err)
	}
	return nil
}
