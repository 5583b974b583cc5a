package loadgen

import (
	"testing"
	"time"
)

func TestSpreadIsByNearestRank(t *testing.T) {
	s := time.Second
	tests := []struct {
		name              string
		sorted            []time.Duration
		p50, p99, maximum float64
	}{
		{"one node", []time.Duration{3 * s}, 3, 3, 3},
		{"early and late", []time.Duration{-1 * s, 0, 2 * s, 5 * s}, 0, 5, 5},
		{"a hundred", hundred(), 50, 99, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p50, p99, maximum := spread(tt.sorted)
			if p50 != tt.p50 || p99 != tt.p99 || maximum != tt.maximum {
				t.Errorf("spread = %g, %g, %g; want %g, %g, %g", p50, p99, maximum, tt.p50, tt.p99, tt.maximum)
			}
		})
	}
}

// hundred is 1 s … 100 s.
func hundred() []time.Duration {
	out := make([]time.Duration, 100)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Second
	}
	return out
}
