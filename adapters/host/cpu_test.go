package host

import "testing"

func TestCPUSamplerTakesTheShareBetweenSamples(t *testing.T) {
	var s cpuSampler
	steps := []struct {
		name      string
		busy, all float64
		want      float64 // -1: not reported
	}{
		{"the first sample says nothing about now", 500, 1000, -1},
		{"a quarter busy since", 550, 1200, 25},
		{"no time passed", 550, 1200, -1},
		{"fully busy", 650, 1300, 100},
		{"counters went back: start afresh", 10, 20, -1},
		{"idle since", 10, 120, 0},
	}
	for _, st := range steps {
		got := s.percent(st.busy, st.all)
		switch {
		case st.want < 0 && got != nil:
			t.Errorf("%s: %v%%, want none", st.name, *got)
		case st.want >= 0 && (got == nil || *got != st.want):
			t.Errorf("%s: %v, want %v%%", st.name, got, st.want)
		}
	}
}
