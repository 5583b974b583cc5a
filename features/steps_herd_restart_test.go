package features

import (
	"context"
	"fmt"
	"time"

	"github.com/cucumber/godog"
)

func (w *world) registerHerdRestartSteps(sc *godog.ScenarioContext) {
	sc.Step(`^herd is down for (\d+) (seconds?|minutes?|hours?) and starts again on its data$`, w.downFor)
}

// downFor stops herd, moves the clock on while nothing of herd runs (no
// reconciler, no poller: nobody is there to hear the fleet), and starts
// herd again on the same log, as an operator restarting or upgrading it
// would.
func (w *world) downFor(n int, unit string) error {
	d := map[string]time.Duration{
		"second": time.Second, "seconds": time.Second,
		"minute": time.Minute, "minutes": time.Minute,
		"hour": time.Hour, "hours": time.Hour,
	}[unit]
	ctx := context.Background()
	stopCtx, cancel := context.WithTimeout(ctx, startStopTimeout)
	defer cancel()
	if err := w.app.Stop(stopCtx); err != nil {
		return fmt.Errorf("stop herd: %w", err)
	}
	w.app, w.recs, w.kubelets = nil, nil, nil
	w.clock.SetTime(w.clock.Now().Add(time.Duration(n) * d))
	return w.launch(ctx)
}
