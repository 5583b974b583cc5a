package httpapi

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// BenchmarkLeaseRenewal measures a kubelet's lease renewal as its lease
// controller sends it: the Lease PUT back with a new renewTime. 100
// registered nodes with their leases renew in turn, one request at a
// time; cpu-ns/op is the whole process's CPU per renewal.
func BenchmarkLeaseRenewal(b *testing.B) {
	const nodes = 100
	api := newTestAPI(b, nil)
	base := api.serve(b).URL
	c := &http.Client{}
	mt := "application/json"
	leaseURL := func(name string) string {
		return base + "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + name
	}
	leaseBody := func(name string, at time.Time) []byte {
		return fmt.Appendf(nil, `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":%q,"namespace":"kube-node-lease"},"spec":{"holderIdentity":%q,"leaseDurationSeconds":40,"renewTime":%q}}`,
			name, name, at.UTC().Format("2006-01-02T15:04:05.000000Z"))
	}
	at := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	for i := range nodes {
		name := fmt.Sprintf("n%06d", i)
		benchDo(b, c, http.StatusCreated, "POST", base+"/api/v1/nodes", mt, mt, encode(b, mt, benchNode(name)))
		benchDo(b, c, http.StatusOK, "PUT", leaseURL(name), mt, mt, leaseBody(name, at))
	}
	cpu := cpuTime(b)
	i := 0
	for b.Loop() {
		name := fmt.Sprintf("n%06d", i%nodes)
		if i%nodes == 0 {
			at = at.Add(10 * time.Second)
		}
		i++
		benchDo(b, c, http.StatusOK, "PUT", leaseURL(name), mt, mt, leaseBody(name, at))
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}
