package domain

import (
	"testing"
	"time"
)

func TestSilent(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	grace, startup := 40*time.Second, 60*time.Second
	tests := []struct {
		name          string
		lastHeartbeat time.Time
		now           time.Time
		want          bool
	}{
		{name: "40 s after a heartbeat is on time", lastHeartbeat: t0, now: t0.Add(40 * time.Second), want: false},
		{name: "41 s after a heartbeat is late", lastHeartbeat: t0, now: t0.Add(41 * time.Second), want: true},
		{name: "never reported, 60 s after registering is on time", now: t0.Add(60 * time.Second), want: false},
		{name: "never reported, 61 s after registering is late", now: t0.Add(61 * time.Second), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Silent(tt.lastHeartbeat, t0, tt.now, grace, startup); got != tt.want {
				t.Errorf("Silent = %v, want %v", got, tt.want)
			}
		})
	}
}
