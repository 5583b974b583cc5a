package jsoncodecs

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"herd/domain"
)

// edgeCases are values whose encoding differs most easily between
// libraries: escaping (HTML, U+2028/9, control characters, invalid
// UTF-8), floats at the edges of encoding/json's two formats, times in
// zones, nil and empty collections, and raw messages.
func edgeCases() map[string]any {
	strs := []string{"", "<script>&</script>", "\u2028\u2029", "\x00\x01\x1f\x7f", "\xff\xfe bad", "tab\tnew\nline\"quote\\", "emoji 🐑 ü", "\ufffd"}
	floats := []float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 1e20, 1e21, 123456789.123456789, math.MaxFloat64, math.SmallestNonzeroFloat64, 3.21, -2.5e-10}
	zone := time.FixedZone("X", 5*3600+30*60)
	return map[string]any{
		"strings": strs,
		"floats":  floats,
		"float32": []float32{0.1, 1e21, 3.4e38},
		"times":   []time.Time{{}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 600, zone)},
		"maps":    map[string]any{"nil": map[string]string(nil), "empty": map[string]string{}, "keys": map[string]int{"b": 1, "a": 2, "<": 3, "é": 4, "A": 5}},
		"slices":  map[string]any{"nil": []string(nil), "empty": []string{}, "bytes": []byte("herd\x00")},
		"raw":     json.RawMessage(`{"b" : 1, "a":[ 1,2 ]}`),
		"node": domain.Node{Name: "n", Labels: map[string]string{"x": "<&>"},
			Conditions: []domain.Condition{{Type: "Ready", Status: "True", Message: "load1 3.21 <= 32 \u2028"}}},
	}
}

func TestEdgeCases(t *testing.T) {
	for name, v := range edgeCases() {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Codecs[1:] {
			got, err := c.Marshal(v)
			switch {
			case err != nil:
				t.Logf("%s %s: encode: %v", c.Name, name, err)
			case !bytes.Equal(got, want):
				t.Logf("%s %s: encodes differently:\n got %s\nwant %s", c.Name, name, got, want)
			}
		}
	}
}
