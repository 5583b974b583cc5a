package conversions

import (
	"testing"

	"herd/domain"
)

// BenchmarkStatefulSetToAPI is one StatefulSet with every field set
// rendered for the API, as a list of StatefulSets renders each.
func BenchmarkStatefulSetToAPI(b *testing.B) {
	s := filled[domain.StatefulSet](b)
	b.ReportAllocs()
	for b.Loop() {
		_ = StatefulSetToAPI(s)
	}
}

// BenchmarkStatefulSetStatusFromAPI is the status a controller writes
// through statefulsets/NAME/status, read.
func BenchmarkStatefulSetStatusFromAPI(b *testing.B) {
	st := StatefulSetToAPI(filled[domain.StatefulSet](b)).Status
	b.ReportAllocs()
	for b.Loop() {
		_ = StatefulSetStatusFromAPI(st)
	}
}
