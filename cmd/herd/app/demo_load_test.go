package app

import (
	"testing"
	"time"
)

// TestDemoPressureComesInEpisodes: over an hour of heartbeats every 10 s,
// the demo's memory-short node crosses the 90% line only at the edges of
// its episodes (two minutes in every twenty), and its busy node crosses
// 80% CPU only at the edges of its own: the demo shows pressure an
// operator can follow, not noise around the threshold.
func TestDemoPressureComesInEpisodes(t *testing.T) {
	start := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	flips := func(i int, above func(m map[string]any) bool) int {
		n, was := 0, false
		for s := 0; s < 3600; s += 10 {
			m := demoMetrics(i, 0, start.Add(time.Duration(s)*time.Second))["metrics"].(map[string]any)
			if now := above(m); now != was {
				n++
				was = now
			}
		}
		return n
	}
	memory := func(m map[string]any) bool {
		total, avail := m["memoryTotalBytes"].(int64), m["memoryAvailableBytes"].(int64)
		return (total-avail)*100 > 90*total
	}
	cpu := func(m map[string]any) bool { return m["cpuPercent"].(float64) > 80 }
	if got := flips(3, memory); got == 0 || got > 6 {
		t.Errorf("demo-linux-03's memory crossed 90%% %d times in an hour, want 1 to 6 (three episodes)", got)
	}
	if got := flips(1, cpu); got == 0 || got > 10 {
		t.Errorf("node 1's CPU crossed 80%% %d times in an hour, want 1 to 10 (four or five episodes)", got)
	}
	if got := flips(0, memory) + flips(2, memory) + flips(2, cpu); got != 0 {
		t.Errorf("demo-linux-00 and node 2 crossed a threshold %d times in an hour, want none (the quickstart drains demo-linux-00: pressure would keep its pods away)", got)
	}
}
