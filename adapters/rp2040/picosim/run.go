package picosim

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// Timing is how often a running board reports and polls; the firmware's
// 10 s and 30 s when zero.
type Timing struct {
	ReportEvery, PollEvery time.Duration
}

// Run is the firmware's main loop on clk: power on, then a status PATCH
// every ReportEvery and a ConfigMap read every PollEvery, until ctx ends.
// Failures are kept in History and retried on the next tick, as the
// firmware does; Run returns ctx's error.
func (p *Pico) Run(ctx context.Context, clk clock.WithTicker, t Timing) error {
	if t.ReportEvery <= 0 {
		t.ReportEvery = ReportEvery
	}
	if t.PollEvery <= 0 {
		t.PollEvery = PollEvery
	}
	_, _ = p.Boot()
	_, _, _ = p.PollConfig()
	report := clk.NewTicker(t.ReportEvery)
	defer report.Stop()
	poll := clk.NewTicker(t.PollEvery)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-report.C():
			_, _ = p.Report()
		case <-poll.C():
			_, _, _ = p.PollConfig()
		}
	}
}
