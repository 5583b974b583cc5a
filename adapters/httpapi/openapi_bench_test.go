package httpapi

import (
	"encoding/json"
	"testing"
)

// BenchmarkOpenAPIDocuments builds every OpenAPI v3 document herd serves,
// as the first request for one does (once a process), and reports their
// size in JSON.
func BenchmarkOpenAPIDocuments(b *testing.B) {
	var size int
	kinds := (&Server{}).kinds()
	for b.Loop() {
		size = 0
		for _, g := range openAPIGroupVersions(kinds) {
			doc, err := openAPIDocument(g)
			if err != nil {
				b.Fatal(err)
			}
			data, err := json.Marshal(doc)
			if err != nil {
				b.Fatal(err)
			}
			size += len(data)
		}
	}
	b.ReportMetric(float64(size), "bytes")
}
