package httpapi

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkNodeRegistrationProtobuf is BenchmarkNodeRegistration as a
// kubelet sends it: client-go's typed clients speak protobuf for the
// Node and the Lease (the kubelet's --kube-api-content-type), and ask
// for protobuf answers. cpu-ns/op is the whole process's CPU per
// registration.
func BenchmarkNodeRegistrationProtobuf(b *testing.B) {
	api := newTestAPI(b, nil)
	base := api.serve(b).URL
	c := &http.Client{}
	mt := protobufType
	renew := metav1.NewMicroTime(time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC))
	cpu := cpuTime(b)
	i := 0
	for b.Loop() {
		name := fmt.Sprintf("n%06d", i)
		i++
		benchDo(b, c, http.StatusCreated, "POST", base+"/api/v1/nodes", mt, mt, encode(b, mt, benchNode(name)))
		leaseURL := base + "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + name
		benchDo(b, c, http.StatusOK, "GET", leaseURL, "", mt, nil)
		holder, secs := name, int32(40)
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-node-lease"},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &renew},
		}
		benchDo(b, c, http.StatusOK, "PUT", leaseURL, mt, mt, encode(b, mt, lease))
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}
