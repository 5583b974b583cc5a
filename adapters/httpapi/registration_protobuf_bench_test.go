package httpapi

import "testing"

// BenchmarkNodeRegistrationProtobuf is BenchmarkNodeRegistration as a
// kubelet sends it: client-go's typed clients speak protobuf for the
// Node and the Lease (the kubelet's --kube-api-content-type), and ask
// for protobuf answers. cpu-ns/op is the whole process's CPU per
// registration.
func BenchmarkNodeRegistrationProtobuf(b *testing.B) {
	benchRegistrations(b, protobufType)
}
